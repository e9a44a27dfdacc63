#include "xla_lite/service/lazy_selects.h"

#include <algorithm>

#include "glog/logging.h"

namespace xla_lite::gpu {
namespace {

// By position in the closure: the ops only the side at position `p` of the
// select at position `at` needs: the side itself, when the select is its
// one user, and every earlier op all of whose users are among them.
// `users` holds each op's users' positions.
std::vector<bool> Exclusive(const std::vector<std::vector<int>>& users,
                            const std::vector<bool>& is_root, int at, int p) {
  std::vector<bool> in(users.size(), false);
  // The select is the side's one user, and uses it once: not as its
  // condition or its other side too.
  if (is_root[p] || users[p] != std::vector<int>{at}) return in;
  in[p] = true;
  for (int q = p - 1; q >= 0; --q) {
    if (is_root[q] || users[q].empty()) continue;
    in[q] = std::all_of(users[q].begin(), users[q].end(),
                        [&](int u) { return in[u]; });
  }
  return in;
}

}  // namespace

LazySelects FindLazySelects(const KernelProgram& program,
                            const std::vector<int>& ids,
                            const std::vector<int>& roots) {
  LazySelects lazy;
  lazy.deferred.assign(program.ops().size(), false);
  CHECK(std::is_sorted(ids.begin(), ids.end()));
  // By position in `ids`: the positions of each op's users, and whether
  // its value is used outside.
  std::vector<std::vector<int>> users(ids.size());
  std::vector<bool> is_root(ids.size(), false);
  auto position = [&](int id) {
    return std::lower_bound(ids.begin(), ids.end(), id) - ids.begin();
  };
  for (int at = 0; at < ids.size(); ++at) {
    for (int operand : program.op(ids[at]).operands) {
      users[position(operand)].push_back(at);
    }
  }
  for (int root : roots) is_root[position(root)] = true;
  // Inner selects first: an op goes to the innermost lazy side holding it.
  std::vector<int> owner(ids.size(), -1);
  for (int at = 0; at < ids.size(); ++at) {
    const ExprOp& op = program.op(ids[at]);
    if (op.kind != ExprKind::kSelect) continue;
    std::vector<bool> on_true =
        Exclusive(users, is_root, at, position(op.operands[1]));
    std::vector<bool> on_false =
        Exclusive(users, is_root, at, position(op.operands[2]));
    bool loads = false;
    for (int q = 0; q < at; ++q) {
      loads = loads || ((on_true[q] || on_false[q]) &&
                        program.op(ids[q]).kind == ExprKind::kLoad);
    }
    if (!loads) continue;
    LazySelects::Sides& sides = lazy.selects[ids[at]];
    for (int q = 0; q < at; ++q) {
      if (owner[q] >= 0 || !(on_true[q] || on_false[q])) continue;
      owner[q] = at;
      lazy.deferred[ids[q]] = true;
      (on_true[q] ? sides.on_true : sides.on_false).push_back(ids[q]);
    }
  }
  return lazy;
}

}  // namespace xla_lite::gpu
