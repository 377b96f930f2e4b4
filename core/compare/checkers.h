// The checkers of a compare (§9.8) over one node's rows: they set each row's Result and its
// Err_message texts. Internal to compare/ (compare.cc makes the rows, checkers.cc checks them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compare/compare.h"
#include "compare/compare_cells.h"

namespace visprobe {
namespace compare_detail {

// One row of a node's comparison: a target item and the golden item paired with it (§9.2).
struct Row {
  const CmpItem* n = nullptr;
  const CmpItem* b = nullptr;  // nullptr: an extra target item
  bool is_output = false;
  Cell nstat[4], bstat[4];  // NPU / Bench max, min, mean, l2norm as the row holds them
  Cell ind[8];  // summary indicators
  double rel[4] = {0, 0, 0, 0};  // ind[4 + k] is repr(rel[k]) + "%" when rel_repr[k]
  bool rel_repr[4] = {false, false, false, false};
  Cell metric[6];  // tensor metrics
  Cell nmd5, bmd5;
  Cell nreq, breq, ndtype, bdtype, nshape, bshape;
  std::string bench_name;
  bool req_consistent = false;
  int result = kPass;
  std::vector<std::string> msgs;
};
// §9.8's checkers, in the reference's order, on the node's rows (inputs, then outputs).
void RunCheckers(const CompareSettings& s, std::vector<Row>& rows);

// The API name of a node name ("Functional.conv2d.0.forward" -> "conv2d"); `strip_rank` drops a
// "_rank<N>" suffix as a parallel merge names APIs.
std::string ApiSegment(std::string_view name, bool strip_rank);

}  // namespace compare_detail
}  // namespace visprobe
