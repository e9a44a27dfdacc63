#ifndef XLA_LITE_SERVICE_LAZY_SELECTS_H_
#define XLA_LITE_SERVICE_LAZY_SELECTS_H_

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "xla_lite/service/kernel_program.h"

namespace xla_lite::gpu {

// The selects of a loop kernel whose sides are worth computing only where
// they are taken. A concatenate is a chain of selects between its
// operands' loads: evaluated eagerly, every element loads every operand
// (the bf16 transformer's q/k/v gradient concatenations loaded three times
// what they stored). A side's ops that nothing else needs run inside an
// `if` on the select's condition instead. Only selects with a load on one
// of their sides are lazy; the rest gain nothing from a branch.
struct LazySelects {
  struct Sides {
    // The ops only this select's true (false) side needs, in program
    // order, less those a lazy select inside that side takes.
    std::vector<int> on_true, on_false;
  };
  absl::flat_hash_map<int, Sides> selects;
  // By op: whether some lazy select's side holds it.
  std::vector<bool> deferred;
};

// `ids` is a closure in program order (KernelProgram::Closure of `roots`);
// the roots' values are used outside it.
LazySelects FindLazySelects(const KernelProgram& program,
                            const std::vector<int>& ids,
                            const std::vector<int>& roots);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_LAZY_SELECTS_H_
