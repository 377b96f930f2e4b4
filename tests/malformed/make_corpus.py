#!/usr/bin/env python3
"""Writes the malformed-input corpus: one rank folder per case under tests/malformed/cases/, and
tests/malformed/expected.json mapping each case to the text its one error message must contain.
The corpus is committed; rerun this only to change it. Each case starts from a valid rank folder
(the spec's worked example) and breaks one thing."""
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "..", "data", "worked_example", "npu", "step0", "rank0")
OUT = os.path.join(HERE, "cases")


def read(name):
    with open(os.path.join(BASE, name), encoding="utf-8") as f:
        return f.read()


DUMP, CONSTRUCT, STACK = read("dump.json"), read("construct.json"), read("stack.json")
DUMP_LOAD = 'load json file "dump.json" failed'
CONS_LOAD = 'load json file "construct.json" failed'
STACK_LOAD = 'load json file "stack.json" failed'
STACK_SHAPE = "The format of the stack.json is incorrect"
CONS_PARSE = 'Parse construct json file "construct.json" failed.'
CONS_EMPTY = "The content of 'construct.json' is empty"

CASES = {
    # dump.json
    "dump_truncated_record": ({"dump.json": DUMP[: len(DUMP) // 2]}, [DUMP_LOAD, "dump.json @ byte"]),
    "dump_truncated_string": ({"dump.json": DUMP[: DUMP.index("torch.float32") + 5]}, [DUMP_LOAD, "dump.json @ byte"]),
    "dump_unterminated_at_eof": ({"dump.json": DUMP.rstrip()[:-3]}, [DUMP_LOAD]),
    "dump_top_level_array": ({"dump.json": "[1, 2, 3]\n"}, [DUMP_LOAD, "not a JSON object"]),
    "dump_top_level_string": ({"dump.json": '"data"\n'}, [DUMP_LOAD, "not a JSON object"]),
    "dump_top_level_number": ({"dump.json": "42\n"}, [DUMP_LOAD]),
    "dump_zero_bytes": ({"dump.json": ""}, [DUMP_LOAD, "empty"]),
    "dump_only_whitespace": ({"dump.json": "   \n\t\n"}, [DUMP_LOAD]),
    "dump_bad_number": ({"dump.json": DUMP.replace('"Max": 0.5', '"Max": 0.5.5', 1)}, [DUMP_LOAD, "dump.json @ byte"]),
    "dump_enormous_number": ({"dump.json": DUMP.replace('"Max": 0.5', '"Max": 1' + "0" * 400 + ".5e99999", 1)}, [DUMP_LOAD]),
    "dump_bad_literal": ({"dump.json": DUMP.replace('"requires_grad": false', '"requires_grad": flase', 1)}, [DUMP_LOAD]),
    "dump_invalid_utf8": ({"dump.json": DUMP.replace("torch.float32", "torch.\udcff\udcfefloat32", 1)}, [DUMP_LOAD]),
    "dump_raw_control_char": ({"dump.json": DUMP.replace("torch.float32", "torch.\x01float32", 1)}, [DUMP_LOAD]),
    "dump_unbalanced_braces": ({"dump.json": DUMP.replace('"input_kwargs": {},', '"input_kwargs": {]},', 1)}, [DUMP_LOAD]),
    "dump_trailing_garbage": ({"dump.json": DUMP + "\n}}garbage"}, [DUMP_LOAD, "dump.json @ byte"]),
    "dump_trailing_text": ({"dump.json": DUMP + "\ngarbage"}, [DUMP_LOAD, "after the top-level object"]),
    "dump_deep_nesting": ({"dump.json": '{"task": "statistics", "data": {"Module.fc1.Linear.forward.0": {"input_args": '
                                        + "[" * 5000 + "]" * 5000 + "}}}"}, [DUMP_LOAD]),
    # Limits (core/base/limits.h): one level over kMaxJsonDepth names the limit.
    "dump_nesting_over_limit": ({"dump.json": '{"task": "statistics", "data": {"Module.fc1.Linear.forward.0": {"input_args": '
                                              + "[" * 1000 + "]" * 1000 + "}}}"},
                                [DUMP_LOAD, "dump.json @ byte", "JSON nesting deeper than the limit of 1000 levels"]),
    "dump_bad_escape": ({"dump.json": DUMP.replace("torch.float32", "torch\\qfloat32", 1)}, [DUMP_LOAD]),
    # construct.json
    "construct_empty_object": ({"construct.json": "{}"}, [CONS_EMPTY]),
    "construct_zero_bytes": ({"construct.json": ""}, [CONS_LOAD]),
    "construct_truncated": ({"construct.json": CONSTRUCT[: len(CONSTRUCT) // 2]}, [CONS_LOAD, "construct.json @ byte"]),
    "construct_top_level_array": ({"construct.json": '["Module.a.A.forward.0"]'}, [CONS_LOAD]),
    "construct_number_value": ({"construct.json": '{"Module.fc1.Linear.forward.0": 12}'}, [CONS_PARSE]),
    "construct_object_value": ({"construct.json": '{"Module.fc1.Linear.forward.0": {"parent": null}}'}, [CONS_PARSE]),
    "construct_megatron_three": ({"construct.json": '{"megatron_micro_step_number": 1, "Module.a.A.forward.0": [null, 0, 1]}'}, [CONS_PARSE]),
    "construct_megatron_string_micro": ({"construct.json": '{"megatron_micro_step_number": 1, "Module.a.A.forward.0": [null, "0"]}'}, [CONS_PARSE]),
    "construct_megatron_only": ({"construct.json": '{"megatron_micro_step_number": 3}'}, [CONS_EMPTY]),
    "construct_list_without_megatron": ({"construct.json": '{"Module.a.A.forward.0": [null, 0]}'}, [CONS_PARSE]),
    # stack.json
    "stack_top_level_list": ({"stack.json": '[["a"], ["b"]]'}, [STACK_SHAPE]),
    "stack_top_level_string": ({"stack.json": '"stack"'}, [STACK_SHAPE]),
    "stack_truncated": ({"stack.json": STACK[: len(STACK) // 2]}, [STACK_LOAD, "stack.json @ byte"]),
    "stack_zero_bytes": ({"stack.json": ""}, [STACK_LOAD]),
    # missing or odd files
    "missing_dump": ({"dump.json": None}, ["dump.json does not exist"]),
    "missing_construct": ({"construct.json": None}, ["construct.json does not exist"]),
    "missing_stack": ({"stack.json": None}, ["stack.json does not exist"]),
    "dump_is_a_directory": ({"dump.json": "DIR"}, ["dump.json should be a file"]),
    "dump_dangling_symlink": ({"dump.json": ("LINK", "nowhere.json")}, ["dump.json does not exist"]),
    "dump_symlink_loop": ({"dump.json": ("LINK", "dump.json")}, ["dump.json does not exist"]),
}


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    expected = {}
    for name, (files, must) in CASES.items():
        d = os.path.join(OUT, name)
        os.makedirs(d)
        texts = {"dump.json": DUMP, "construct.json": CONSTRUCT, "stack.json": STACK}
        texts.update(files)
        for fname, text in texts.items():
            path = os.path.join(d, fname)
            if text is None:
                continue
            if text == "DIR":
                os.makedirs(path)
                with open(os.path.join(path, ".keep"), "w"):
                    pass
            elif isinstance(text, tuple):
                os.symlink(text[1], path)
            else:
                with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(text)
        expected[name] = must
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(CASES)} cases written to {OUT}")


if __name__ == "__main__":
    main()
