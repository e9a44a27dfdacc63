#ifndef TESTS_SERVICE_OP_CASES_H_
#define TESTS_SERVICE_OP_CASES_H_

// HLO that uses each row of the compiler's op table (elemental_ops.h) on
// each element type, so tests can hold the table to what the compiler and
// both kernel back ends do.

#include <string>
#include <vector>

#include "xla_lite/primitive_util.h"
#include "xla_lite/service/elemental_ops.h"

namespace xla_lite::testing {

// One use of a row's op on one element type. `body` lines call parameter
// i "$pi" and prefix the names they define with "$_", so that cases can
// share one module; "$_op" is the instruction under test (parameter
// rows: "$p0"), and `result` the value the case returns.
struct OpCase {
  std::string label;  // "<opcode>.<type>", and more when one row has several.
  const gpu::ElementalOp* row = nullptr;
  PrimitiveType type = PrimitiveType::F32;
  // What the row says: the compiler takes this case.
  bool supported = false;
  std::vector<std::string> parameters;  // Shapes.
  std::vector<std::string> body;
  std::string result;
  std::string result_shape;
  std::string computations;  // Named "$_..." too.
};

// Cases for every row and every element type (the verifier may reject
// some: not every op is defined for every type).
std::vector<OpCase> AllOpCases();

// A module whose entry computes `c` and returns its result; "$_op" becomes
// "op".
std::string ModuleFor(const OpCase& c);

// One module computing every case of `cases`, returning their results as
// a tuple; case k's names get the prefix "c<k>_".
std::string ModuleForAll(const std::vector<OpCase>& cases);

}  // namespace xla_lite::testing

#endif  // TESTS_SERVICE_OP_CASES_H_
