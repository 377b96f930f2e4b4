// dump.json through the windowed reader (small windows, so records cross window boundaries),
// the item rules and the overflow check; then the key-only first pass.
#include <cstdint>

#include "fuzz_util.h"
#include "graph/items.h"
#include "graph/overflow.h"
#include "loader/json_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = vpfuzz::WriteFile("dump.json", data, size);
  visprobe::JsonReadOptions o;
  o.container_key = "data";
  o.window_bytes = 1 + (size % 97);
  o.block_bytes = 1 + (size % 61);
  visprobe::NodeItems items;
  visprobe::ItemOptions io;
  io.capture = (size & 1) != 0;
  io.keep_md5 = (size & 2) != 0;
  auto r = visprobe::ReadJsonRecords(path, o, [&](std::string_view key, const visprobe::JTree& t, visprobe::JIdx v) {
    (void)visprobe::ParseEntryItems(t, v, key, io, items);
    (void)visprobe::CheckOverflow(t, v, key);
    return visprobe::Status::Ok();
  });
  (void)r;
  auto k = visprobe::ScanJsonKeys(path, o, [](std::string_view, uint64_t) { return visprobe::Status::Ok(); });
  (void)k;
  return 0;
}
