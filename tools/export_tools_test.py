#!/usr/bin/env python3
"""Tests of the model definitions and export tools that need no JAX: the
specs' NumPy data, the HLO text checks (on the JAX exports committed in
configs/models), model.txt, .npy writing and the summary table.

  python3 tools/export_tools_test.py     (needs NumPy: Debian's python3-numpy)
"""

import os
import re
import shutil
import sys
import tempfile
import unittest

import numpy as np

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
import export_jax_hlo  # noqa: E402
import hlo_text_checks as checks  # noqa: E402
import jax_cnn  # noqa: E402
import jax_common  # noqa: E402
import jax_models  # noqa: E402
import summarize_models  # noqa: E402

MODELS_DIR = os.path.join(TOOLS, "..", "configs", "models")
COMMITTED = sorted(
    n for n in os.listdir(MODELS_DIR)
    if os.path.isfile(os.path.join(MODELS_DIR, n, "train_step.hlo")))

# The models the compiler runs end to end (configs/models/BUILD's MODELS):
# their exports must use only supported opcodes and element types. The
# others may still hold operations the compiler does not take yet.
with open(os.path.join(MODELS_DIR, "BUILD")) as _build:
    SUPPORTED = set(re.findall(r'^\s+"(\w+)",$', _build.read().split(
        "MODELS = [", 1)[1].split("]", 1)[0], re.M))
CENSUS_WARNING = re.compile(r"^(opcode|element type) outside ")


def read(path):
    with open(path) as f:
        return f.read()


def leaf_shapes(spec):
    return [(checks.hlo_type(a.dtype), a.shape)
            for a in jax_common.tree_leaves(spec.make_inputs())]


def num_donated(spec):
    args = spec.make_inputs()
    return sum(len(jax_common.tree_leaves(args[i]))
               for i in spec.donate_argnums)


class ToolsImportWithoutJaxTest(unittest.TestCase):
    def test_jax_is_not_imported(self):
        self.assertNotIn("jax", sys.modules)


class SpecTest(unittest.TestCase):
    def test_committed_exports_are_registered(self):
        self.assertTrue(COMMITTED)
        for name in COMMITTED:
            self.assertIn(name, jax_models.MODELS)

    def test_mlp_inputs_are_the_committed_inputs(self):
        for name in COMMITTED:
            spec = jax_models.MODELS[name]
            if not spec.write_data:
                continue
            leaves = jax_common.tree_leaves(spec.make_inputs())
            for i, leaf in enumerate(leaves):
                committed = np.load(os.path.join(MODELS_DIR, name,
                                                 "input_%d.npy" % i))
                self.assertEqual(committed.dtype, leaf.dtype, (name, i))
                np.testing.assert_array_equal(committed, leaf,
                                              err_msg="%s input %d" % (name, i))
            self.assertFalse(os.path.exists(os.path.join(
                MODELS_DIR, name, "input_%d.npy" % len(leaves))), name)

    def test_every_spec_keeps_the_protocol(self):
        for name, spec in jax_models.MODELS.items():
            with self.subTest(model=name):
                args = spec.make_inputs()
                leaves = jax_common.tree_leaves(args)
                params = jax_common.tree_leaves(args[0])
                self.assertEqual(spec.parameter_count(),
                                 sum(a.size for a in params))
                donated = num_donated(spec)
                for leaf in leaves[:donated]:
                    self.assertEqual(leaf.dtype, np.float32)
                self.assertEqual(len(spec.batch_names), len(leaves) - donated)
                for leaf in leaves:
                    self.assertIn(checks.hlo_type(leaf.dtype), ("f32", "s32"))
                    self.assertTrue(leaf.flags.c_contiguous)
                again = jax_common.tree_leaves(spec.make_inputs())
                for a, b in zip(leaves, again):
                    np.testing.assert_array_equal(a, b)
                for key, value in spec.facts():
                    self.assertRegex(key, r"^[a-z_]+$")
                    self.assertNotIn("\n", value)
                self.assertIn(spec.matmul_precision, ("highest", "default"))

    def test_data_fits_the_budget(self):
        for name, spec in jax_models.MODELS.items():
            if not spec.write_data:
                continue
            leaves = jax_common.tree_leaves(spec.make_inputs())
            donated = num_donated(spec)
            outputs = sum(a.nbytes for a in leaves[:donated]) + 4  # + loss
            total = sum(a.nbytes for a in leaves) + 2 * outputs
            self.assertLessEqual(total, spec.data_budget_kb * 1024, name)

    def test_transformer_targets_are_the_next_tokens(self):
        for name in ("transformer_tiny", "transformer_bf16_tiny"):
            spec = jax_models.MODELS[name]
            tokens, targets = spec.make_inputs()[-2:]
            self.assertEqual(tokens.dtype, np.int32)
            self.assertEqual(tokens.shape, (spec.batch, spec.seq))
            np.testing.assert_array_equal(tokens[:, 1:], targets[:, :-1])
            self.assertGreaterEqual(tokens.min(), 0)
            self.assertLess(max(tokens.max(), targets.max()), spec.vocab)
        f32 = jax_common.tree_leaves(
            jax_models.MODELS["transformer_tiny"].make_inputs())
        bf16 = jax_common.tree_leaves(
            jax_models.MODELS["transformer_bf16_tiny"].make_inputs())
        for a, b in zip(f32, bf16):
            np.testing.assert_array_equal(a, b)

    def test_control_flow_inputs(self):
        x, y = jax_models.MODELS["scan_grad_accum"].make_inputs()[1:]
        self.assertEqual(x.shape, (4, 16, 32))
        np.testing.assert_array_equal(y.sum(axis=-1), np.ones((4, 16)))
        steps = jax_models.MODELS["fori_steps_input"].make_inputs()[-1]
        self.assertEqual((steps.dtype, steps.shape, int(steps)),
                         (np.dtype(np.int32), (), 3))

    def test_data_parallel_model_has_its_twins_inputs(self):
        spec = jax_models.MODELS["dp2_mlp"]
        twin = jax_models.MODELS["mlp_softmax"]
        self.assertIs(spec.equivalent_model, twin)
        self.assertEqual(spec.num_devices, 2)
        for a, b in zip(jax_common.tree_leaves(spec.make_inputs()),
                        jax_common.tree_leaves(twin.make_inputs())):
            np.testing.assert_array_equal(a, b)

    def test_cnn_shapes_flow(self):
        spec = jax_models.MODELS["cnn_small"]
        texts = [text for text, _ in jax_cnn._walk(spec)]
        self.assertIn("conv3x3 VALID 8->16", texts)
        self.assertIn("flatten 64", texts)  # 12 -> pool 6 -> valid 4 -> 2
        w_shapes = [w for w, _ in jax_cnn.param_shapes(
            jax_models.MODELS["cnn_depthwise"])]
        self.assertIn((3, 3, 1, 8), w_shapes)
        with self.assertRaises(AssertionError):
            jax_cnn.CnnSpec(name="bad", description="", image=(4, 4, 1),
                            batch=1, layers=(("save",), ("max_pool",),
                                             ("add_saved",), ("flatten",),
                                             ("dense", 2)))

    def test_new_models_are_listed(self):
        self.assertIn("dp2_mlp", jax_models.NEW_MODELS)
        self.assertNotIn("mlp_adam", jax_models.NEW_MODELS)
        self.assertEqual(
            export_jax_hlo.group_by_devices(["mlp_adam", "dp2_mlp", "cnn_small"]),
            {1: ["mlp_adam", "cnn_small"], 2: ["dp2_mlp"]})
        self.assertEqual(export_jax_hlo.group_by_devices(["dp2_mlp"], 2),
                         {2: ["dp2_mlp"]})


class JaxPeerTest(unittest.TestCase):
    def test_configs(self):
        sys.path.insert(0, os.path.join(TOOLS, "..", "tests", "peers"))
        import jax_step
        spec, label = jax_step.parse_config("48-96-80-12:24")
        self.assertEqual((spec.sizes, spec.batch, label),
                         ((48, 96, 80, 12), 24, "48-96-80-12"))
        spec, label = jax_step.parse_config("fori_steps16")
        self.assertEqual((spec.steps, spec.batch, label),
                         (16, 16, "fori_steps16"))
        with self.assertRaisesRegex(ValueError, "needs 2 devices"):
            jax_step.parse_config("dp2_mlp")
        with self.assertRaisesRegex(ValueError, "LAYERS:BATCH or a model"):
            jax_step.parse_config("no_such_model")


class HloChecksTest(unittest.TestCase):
    def test_committed_exports_pass(self):
        for name in COMMITTED:
            spec = jax_models.MODELS[name]
            hlo_text = read(os.path.join(MODELS_DIR, name, "train_step.hlo"))
            errors, warnings, aliases, outputs, census = checks.check_hlo(
                hlo_text, leaf_shapes(spec), num_donated(spec),
                require_highest=spec.matmul_precision == "highest")
            self.assertEqual(errors, [], name)
            if name in SUPPORTED:
                self.assertEqual(warnings, [], name)
            for warning in warnings:
                self.assertRegex(warning, CENSUS_WARNING, name)
            self.assertEqual(len(aliases), num_donated(spec), name)
            self.assertEqual(outputs[-1], ("f32", ()), name)  # the loss
            self.assertGreater(census["dot"], 0, name)

    def test_errors_are_found(self):
        spec = jax_models.MODELS["mlp_adam"]
        hlo_text = read(os.path.join(MODELS_DIR, "mlp_adam", "train_step.hlo"))
        unaliased = hlo_text.replace("{3}: (3, {}, may-alias), ", "", 1)
        errors = checks.check_hlo(unaliased, leaf_shapes(spec),
                                  num_donated(spec))[0]
        self.assertEqual(len(errors), 1)
        self.assertIn("donated parameter 3 is not aliased", errors[0])
        shapes = leaf_shapes(spec)
        shapes[-1] = ("s32", shapes[-1][1])
        self.assertIn("differ from the pytree leaves",
                      checks.check_hlo(hlo_text, shapes, num_donated(spec))[0][0])
        default = hlo_text.replace("operand_precision={highest,highest}", "", 1)
        warnings = checks.check_hlo(default, leaf_shapes(spec),
                                    num_donated(spec))[1]
        self.assertEqual(len(warnings), 1)
        self.assertIn("lack operand_precision", warnings[0])
        self.assertEqual(checks.check_hlo(default, leaf_shapes(spec),
                                          num_donated(spec),
                                          require_highest=False)[1], [])

    def test_buffer_donors_count_as_aliases(self):
        spec = jax_models.MODELS["mlp_adam"]
        hlo_text = read(os.path.join(MODELS_DIR, "mlp_adam", "train_step.hlo"))
        header, rest = hlo_text.split("\n", 1)
        start = header.index("input_output_alias={")
        end = checks._balanced(header, start + len("input_output_alias="))
        donors = ", ".join("(%d, {})" % p for p in range(num_donated(spec)))
        donated = (header[:start] + "buffer_donor={ %s }" % donors +
                   header[end:] + "\n" + rest)
        self.assertEqual(checks.buffer_donors(donated),
                         list(range(num_donated(spec))))
        errors, _, aliases, _, _ = checks.check_hlo(
            donated, leaf_shapes(spec), num_donated(spec))
        self.assertEqual(errors, [])
        self.assertEqual(aliases, {p: p for p in range(num_donated(spec))})
        one_short = donated.replace("(0, {}), ", "", 1)
        self.assertIn("donated parameter 0 is not aliased",
                      checks.check_hlo(one_short, leaf_shapes(spec),
                                       num_donated(spec))[0][0])

    def test_dot_types_of_a_committed_export(self):
        hlo_text = read(os.path.join(MODELS_DIR, "mlp_adam", "train_step.hlo"))
        census = checks.dot_type_census(hlo_text)
        self.assertEqual(list(census), ["dot f32 x f32 -> f32"])
        self.assertEqual(sum(census.values()),
                         checks.opcode_census(hlo_text)["dot"])

    # Lines in the form XLA prints them (HloPrintOptions::ShortParsable).
    SNIPPET = "\n".join([
        "HloModule jit_step, entry_computation_layout={(bf16[4,8]{1,0}, "
        "bf16[8,2]{1,0}, s32[])->(f32[4,2]{1,0})}, num_partitions=2",
        "",
        "ENTRY main.9 {",
        "  Arg_0.1 = bf16[4,8]{1,0} parameter(0), sharding={devices=[2,1]<=[2]}",
        "  Arg_1.2 = bf16[8,2]{1,0} parameter(1), sharding={replicated}",
        "  Arg_2.3 = s32[] parameter(2)",
        "  dot.4 = f32[4,2]{1,0} dot(Arg_0.1, Arg_1.2), lhs_contracting_dims={1}, "
        "rhs_contracting_dims={0}",
        "  convert.5 = f32[8,2]{1,0} convert(Arg_1.2)",
        "  custom-call.6 = f32[4,2]{1,0} custom-call(dot.4), "
        "custom_call_target=\"Sharding\", sharding={devices=[2,1]<=[2]}",
        "  all-reduce.7 = f32[4,2]{1,0} all-reduce(custom-call.6), channel_id=1, "
        "replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add.1",
        "  while.8 = (s32[], f32[4,2]{1,0}) while(tuple.3), condition=cond.1, "
        "body=body.2",
        "  ROOT tuple.9 = (f32[4,2]{1,0}) tuple(all-reduce.7)",
        "}",
    ])

    def test_census_of_new_opcodes(self):
        census = checks.opcode_census(self.SNIPPET)
        self.assertEqual(census["custom-call"], 1)
        self.assertEqual(census["all-reduce"], 1)
        self.assertEqual(census["while"], 1)
        self.assertEqual(checks.unsupported_opcodes(census),
                         {"custom-call": 1, "while": 1})
        self.assertEqual(set(checks.element_type_census(self.SNIPPET)),
                         {"bf16", "f32", "s32"})
        self.assertEqual(checks.dot_type_census(self.SNIPPET),
                         {"dot bf16 x bf16 -> f32": 1})
        self.assertEqual(checks.header_int(self.SNIPPET, "num_partitions"), 2)
        self.assertIsNone(checks.header_int(self.SNIPPET, "replica_count"))
        _, params, outputs = checks.parse_module_header(self.SNIPPET)
        self.assertEqual(params, [("bf16", (4, 8)), ("bf16", (8, 2)),
                                  ("s32", ())])
        self.assertEqual(outputs, [("f32", (4, 2))])

    def test_hlo_types(self):
        self.assertEqual(checks.hlo_type(np.dtype(np.float32)), "f32")
        self.assertEqual(checks.hlo_type(np.dtype(np.int32)), "s32")
        self.assertEqual(checks.hlo_type(np.dtype(np.bool_)), "pred")
        with self.assertRaises(ValueError):
            checks.hlo_type(np.dtype(np.complex64))


class FilesTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_model_txt_is_the_committed_one(self):
        for name in COMMITTED:
            spec = jax_models.MODELS[name]
            committed = read(os.path.join(MODELS_DIR, name, "model.txt"))
            facts = summarize_models.read_facts(
                os.path.join(MODELS_DIR, name, "model.txt"))
            hlo_text = read(os.path.join(MODELS_DIR, name, "train_step.hlo"))
            _, _, outputs = checks.parse_module_header(hlo_text)
            args = spec.make_inputs()
            text = export_jax_hlo.model_txt(
                spec, facts["jax_version"], facts["lowered_for"],
                jax_common.tree_leaves(args),
                len(jax_common.tree_leaves(args[0])), outputs,
                num_donated(spec), checks.dot_type_census(hlo_text))
            self.assertEqual(text, committed, name)

    def test_save_array(self):
        cases = [np.arange(6, dtype=np.float32).reshape(2, 3).T,
                 np.array([[1, -2]], dtype=np.int32), np.array(7, np.int32),
                 np.array([True, False])]
        for i, array in enumerate(cases):
            path = os.path.join(self.dir, "a%d.npy" % i)
            export_jax_hlo.save_array(path, array)
            loaded = np.load(path)
            self.assertEqual(loaded.dtype, array.dtype)
            np.testing.assert_array_equal(loaded, array)
            self.assertTrue(loaded.flags.c_contiguous)
        with self.assertRaises(ValueError):
            export_jax_hlo.save_array(os.path.join(self.dir, "f64.npy"),
                                      np.zeros(2))

    def test_clear_model_dir_removes_only_exports(self):
        model_dir = os.path.join(self.dir, "m")
        os.makedirs(os.path.join(model_dir, "reference_step1"))
        os.makedirs(os.path.join(model_dir, "notes"))
        for name in ("input_0.npy", "train_step.hlo", "model.txt",
                     "check_errors.txt", "README", "reference_step1/o.npy"):
            with open(os.path.join(model_dir, name), "w") as f:
                f.write("x")
        export_jax_hlo.clear_model_dir(model_dir)
        self.assertEqual(sorted(os.listdir(model_dir)), ["README", "notes"])

    def test_summary_table(self):
        rows = [summarize_models.summarize(os.path.join(MODELS_DIR, n))
                for n in COMMITTED]
        by_name = {r["model"]: r for r in rows}
        self.assertEqual(by_name["mlp_adam"]["params"], "2762")
        self.assertEqual(by_name["mlp_adam"]["files"], 2 + 15 + 2 * 14)
        self.assertEqual(by_name["mlp_wide"]["files"], 2)
        self.assertTrue(SUPPORTED)
        for row in rows:
            if row["model"] in SUPPORTED:
                self.assertEqual((row["unsupported"], row["types"]), ("-", "-"))
        table = summarize_models.format_table(rows)
        self.assertEqual(len(table.splitlines()), len(rows) + 1)
        self.assertTrue(re.search(r"^mlp_adam\s+2762\s+45\s", table, re.M),
                        table)


if __name__ == "__main__":
    unittest.main(verbosity=1)
