#ifndef XLA_LITE_DEBUG_OPTIONS_FLAGS_H_
#define XLA_LITE_DEBUG_OPTIONS_FLAGS_H_

// Building DebugOptions: defaults, preset files and XLA_FLAGS.
//
// The runtime reads its configuration exactly once, through
// DebugOptionsFromEnvironment() (or DefaultDebugOptions() plus explicit
// presets and flags in tools and tests), and passes the resulting
// DebugOptions down to whatever needs it. No other code may call getenv() to
// look up a setting: a knob that bypasses DebugOptions cannot be put in a
// preset, does not show up in DebugOptionsToFlags() logs, and makes behaviour
// depend on when a component happens to be constructed.
//
// Flag syntax. A flags string is a whitespace-separated list of
//   --name=value   sets field `name` of DebugOptions;
//   --name         same as --name=true (bool fields only).
// A value may be quoted, so that it can contain whitespace: '...' is taken
// verbatim, and inside "..." a backslash escapes '"' or a backslash. Values
// by field type:
//   bool                   true, false, 1 or 0 (case-insensitive);
//   integers, float/double decimal numbers;
//   string                 the value as is, possibly empty;
//   enum                   a value name, case-insensitive; the prefix derived
//                          from the enum type (PARAMETER_STABILIZATION_ for
//                          ParameterStabilization) may be left out.
// Repeated fields take a comma-separated list:
//   --f=A,B      replaces the list with [A, B];
//   --f=+A,-B    edits the current list in order: +A appends A unless it is
//                already present, -B removes every B (absent is not an
//                error);
//   --f=         empties the list.
// Plain items and +/- edits cannot be mixed in one value. Because a leading
// '-' always means removal, a list of negative numbers is written as edits of
// an empty list: "--f= --f=+-1,+-2".
// Flags apply left to right, so a later flag overrides an earlier one.

#include <string>

#include "absl/status/status.h"

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "xla_lite/debug_options.pb.h"
#include "xla_lite/debug_options_validation.h"

namespace xla_lite {

// The runtime's defaults: command buffers on for fusions, cuBLAS, memcpy and
// memset (collectives stay op by op), graphs of any size, a trace cache of
// 16, cached allocations and COPY parameter stabilization.
DebugOptions DefaultDebugOptions();

// Applies `flags` (syntax above) to `options`. Unknown flags and malformed
// values are InvalidArgumentError naming the flag, the value and what was
// expected. All or nothing: on error `options` is left unchanged.
absl::Status ParseFlagsIntoDebugOptions(absl::string_view flags,
                                        DebugOptions* options);

// DefaultDebugOptions() with the XLA_FLAGS environment variable applied.
// This is the only place the runtime reads the environment; call it once at
// start-up and pass the result down.
absl::StatusOr<DebugOptions> DebugOptionsFromEnvironment();

// Reads the text-format DebugOptions at `path` and applies it over `options`.
// Every field the file names replaces the current value, repeated fields as a
// whole (so "xla_gpu_enable_command_buffer: []" turns command buffers off);
// fields it does not name are kept. Errors name the file and, for syntax
// errors, the line and column. On error `options` is left unchanged.
absl::Status LoadDebugOptionsPreset(const std::string& path,
                                    DebugOptions* options);

// The fields of `options` that differ from DefaultDebugOptions(), as a flags
// string; parsing it over DefaultDebugOptions() gives `options` back. Empty
// when `options` equals the defaults. Meant for logs and reproducers.
std::string DebugOptionsToFlags(const DebugOptions& options);

// The reflection engine behind the functions above, for any message whose
// fields are scalars, enums, strings or repeated ones of those. Message and
// map fields are rejected with InvalidArgumentError.
absl::Status ParseFlagsIntoMessage(absl::string_view flags,
                                   google::protobuf::Message* message);

// The fields of `message` that differ from `defaults`, as a flags string
// with which ParseFlagsIntoMessage() turns `defaults` back into `message`.
// Both must be of the same type (protobuf's reflection checks it). Message
// fields, and lists with an empty item or an item containing a comma, cannot
// be expressed and are left out.
std::string MessageToFlags(const google::protobuf::Message& message,
                           const google::protobuf::Message& defaults);

}  // namespace xla_lite

#endif  // XLA_LITE_DEBUG_OPTIONS_FLAGS_H_
