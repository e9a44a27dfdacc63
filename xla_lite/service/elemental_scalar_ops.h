#ifndef XLA_LITE_SERVICE_ELEMENTAL_SCALAR_OPS_H_
#define XLA_LITE_SERVICE_ELEMENTAL_SCALAR_OPS_H_

// The scalar functions of fused kernels (elemental_scalar_ops.inc),
// compiled for the host interpreter, and the same text for emitted device
// code. elemental_ops.cc names them per op and element class.

#include <math.h>

#include <cmath>

namespace xla_lite::gpu::scalar_ops {

using std::isfinite;

#define XL_FN inline
#include "xla_lite/service/elemental_scalar_ops.inc"
#undef XL_FN

}  // namespace xla_lite::gpu::scalar_ops

namespace xla_lite::gpu {

// elemental_scalar_ops.inc, guarded, for emitted kernels. Needs XL_FN,
// which kFloat16DeviceSource defines.
extern const char kElementalScalarOpsDeviceSource[];

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_ELEMENTAL_SCALAR_OPS_H_
