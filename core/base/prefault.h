// Backing memory with pages before it is written, on a thread that would otherwise wait.
//
// On the 2-core VMs this engine is measured on, the first write to a fresh page costs far more than
// the write: the kernel zeroes the page and the hypervisor backs it (1 GB touched in 1.2 s when the
// memory was cold, 0.1 s when it was recently used; 4 KiB pages 0.75 s). In the structure pass of a
// 1.1 GB dump a third of the graph-building thread's time was that zeroing (perf: clear_page_erms).
// Populating the node table from another thread while the building thread loads stack.json takes
// it off the critical path.
#pragma once

#include <cstddef>

namespace visprobe {

// Asks the kernel to map the whole pages inside [p, p + n) writable, zeroed where new
// (MADV_POPULATE_WRITE, Linux 5.14). Contents already there are unchanged. Returns false where
// that cannot be done (another system, an older kernel, the WebAssembly build): nothing happens
// then, and the pages are mapped on first write as before.
bool PrefaultWritable(const void* p, size_t n);

}  // namespace visprobe
