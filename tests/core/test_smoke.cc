#include <catch2/catch.hpp>

#include "graph/graph.h"

using namespace visprobe;

TEST_CASE("op_of follows the reference's unescaped-dot patterns (§5.2)") {
  CHECK(OpOfName("ModuleTest") == NodeOp::kModule);
  CHECK(OpOfName("TensorTest") == NodeOp::kFunctionApi);
  CHECK(OpOfName("Tensor1") == NodeOp::kFunctionApi);
  CHECK(OpOfName("Tensor") == NodeOp::kModule);
  CHECK(OpOfName("InvalidNodeName") == NodeOp::kModule);
}
