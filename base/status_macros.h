#ifndef BASE_STATUS_MACROS_H_
#define BASE_STATUS_MACROS_H_

// RETURN_IF_ERROR / ASSIGN_OR_RETURN, shared by every layer (stream_executor
// included, which may not depend on anything above it).

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define XLA_LITE_CONCAT_INNER(a, b) a##b
#define XLA_LITE_CONCAT(a, b) XLA_LITE_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                        \
  do {                                               \
    ::absl::Status _status = (expr);                 \
    if (ABSL_PREDICT_FALSE(!_status.ok())) return _status; \
  } while (0)

#define ASSIGN_OR_RETURN(lhs, rexpr) \
  ASSIGN_OR_RETURN_IMPL(XLA_LITE_CONCAT(_status_or_, __LINE__), lhs, rexpr)

#define ASSIGN_OR_RETURN_IMPL(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                          \
  if (ABSL_PREDICT_FALSE(!statusor.ok())) {         \
    return std::move(statusor).status();            \
  }                                                 \
  lhs = *std::move(statusor)

#endif  // BASE_STATUS_MACROS_H_
