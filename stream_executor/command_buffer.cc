#include "stream_executor/command_buffer.h"

#include "absl/strings/str_format.h"

namespace stream_executor {

std::string CommandBuffer::StateName(State state) {
  switch (state) {
    case State::kCreate:
      return "create";
    case State::kUpdate:
      return "update";
    case State::kFinalized:
      return "finalized";
  }
  return "unknown";
}

absl::Status CommandBuffer::CheckState(State current, State expected,
                                       const char* what) const {
  if (current == expected) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrFormat(
      "command buffer: %s needs state %s, but it is %s", what,
      StateName(expected), StateName(current)));
}

absl::StatusOr<std::unique_ptr<CapturedGraph>> TraceIntoGraph(
    Stream* stream, absl::AnyInvocable<absl::Status(Stream*) &&> fn) {
  absl::Status begin = stream->BeginCapture();
  if (!begin.ok()) return begin;
  absl::Status traced = std::move(fn)(stream);
  absl::StatusOr<std::unique_ptr<CapturedGraph>> graph = stream->EndCapture();
  if (!traced.ok()) return traced;
  return graph;
}

}  // namespace stream_executor
