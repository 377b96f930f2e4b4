// The header of a .npy file (numpy.lib.format): a Python literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// and the dtype descriptor it names. Used by npy.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compare/npy.h"

namespace visprobe {

struct NpyHeader {
  bool has_descr = false, has_fortran = false, has_shape = false;
  bool descr_is_string = false;
  std::string descr;
  bool fortran = false;
  std::vector<uint64_t> shape;
};

// numpy evaluates the header with ast.literal_eval; this parser accepts the same subset: string
// keys, string / True / False / tuple-of-int values, optional trailing commas, surrounding blanks.
// Empty string on success, else what is wrong.
std::string ParseNpyHeader(const std::string& text, NpyHeader* h);

// A descr string ("<f4", "|b1", "?", "f8", ...) into a supported dtype; empty string on success.
std::string ParseNpyDescr(const std::string& d, NpyDtype& dt);

}  // namespace visprobe
