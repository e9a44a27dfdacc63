// CloneInstruction keeps every attribute the parser can set, so a pass that
// rewrites an instruction never drops what it means.
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "tests/hlo/hlo_test_util.h"
#include "xla_lite/hlo/hlo_parser.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite {
namespace {

constexpr char kModule[] = R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  table = f32[8,4] parameter(0)
  ids = s32[3] parameter(1)
  rows = f32[3,4] gather(table, ids), offset_dims={1},
      collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1,
      slice_sizes={1,4}, indices_are_sorted=true
  less = pred[3,4] compare(rows, rows), direction=LT, type=TOTALORDER
  ROOT out = f32[8,4] scatter(table, ids, rows), update_window_dims={1},
      inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
      index_vector_dim=1, unique_indices=true, to_apply=add
})";

TEST(CloneInstructionTest, KeepsIndexingAndComparisonAttributes) {
  auto module = ParseHloModule(kModule, "m.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  HloComputation* entry = (*module)->entry_computation();
  for (const char* name : {"rows", "less", "out"}) {
    SCOPED_TRACE(name);
    const HloInstruction* source = FindInstruction(**module, name);
    ASSERT_NE(source, nullptr);
    std::vector<HloInstruction*> operands(source->operands().begin(),
                                          source->operands().end());
    const HloInstruction* clone =
        CloneInstruction(entry, *source, operands, "clone");
    EXPECT_EQ(clone->ToString(), source->ToString().replace(
                                     source->ToString().find(name),
                                     std::string(name).size(), "clone"));
    EXPECT_EQ(clone->source_line(), source->source_line());
  }
}

}  // namespace
}  // namespace xla_lite
