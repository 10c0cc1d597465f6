"""Tests of the adapter examples (``hosts/python/examples``): each one's tool handling, and its whole loop with a
fake SDK standing in for the model (no network, no SDK installed), so a call the model makes reaches the component
and the component's ``text`` goes back.

Run: ``PYTHONPATH=hosts/python python -m unittest discover -s hosts/python/tests`` (with wasmtime installed).
"""

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest
from pathlib import Path
from unittest import mock

from read_window import ReadWindow

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name: str) -> types.ModuleType:
    """The example ``name`` (``examples/<name>.py``) as a module."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Reply(types.SimpleNamespace):
    """An SDK object: attributes, and ``model_dump()`` giving them as a dict."""

    def model_dump(self):
        return {key: value.model_dump() if isinstance(value, Reply) else value for key, value in vars(self).items()}


class ExamplesTest(unittest.TestCase):
    reader: ReadWindow

    @classmethod
    def setUpClass(cls):
        cls.reader = ReadWindow()

    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.dir = os.path.realpath(temp.name)
        Path(self.dir, "five.txt").write_text("one\ntwo\nthree\nfour\nfive\n", encoding="utf-8")
        self.session = self.reader.session([self.dir])
        self.addCleanup(self.session.close)
        self.window = ("1|one\n2|two\n\nShowing lines 1-2 of 5 in " + self.dir + "/five.txt (the limit of 2 lines). "
                       "Use offset=3 to continue.")

    def in_dir(self):
        """Runs the example's ``run`` in the temporary directory (the examples read the current one)."""
        here = os.getcwd()
        os.chdir(self.dir)
        self.addCleanup(os.chdir, here)

    def test_openai_tool_messages_carry_the_components_text(self):
        example = load("openai_function_calling")
        tools = example.tool_definitions(self.session)
        self.assertEqual([tool["function"]["name"] for tool in tools], ["read_file", "list_directory", "read_files", "search", "check_write"])
        self.assertEqual(tools[0]["type"], "function")
        calls = [{"id": "call_1", "type": "function",
                  "function": {"name": "read_file", "arguments": '{"path": "five.txt", "limit": 2}'}},
                 Reply(id="call_2", type="function",
                       function=Reply(name="read_file", arguments='{"path": "nope.txt"}')),
                 {"id": "call_3", "type": "function", "function": {"name": "read_file", "arguments": '{"path": '}}]
        messages = example.tool_messages(self.session, calls)
        self.assertEqual(messages[0], {"role": "tool", "tool_call_id": "call_1", "content": self.window})
        self.assertEqual(messages[1], {"role": "tool", "tool_call_id": "call_2", "content":
                                       f"nope.txt (resolved to {self.dir}/nope.txt) does not exist. Similar names in "
                                       f"{self.dir}: five.txt."})
        # Arguments that are not JSON reach the component as they came, which says what is wrong with them.
        self.assertEqual(messages[2]["content"], "`arguments` must be an object; it was a string that is not a JSON "
                         "object (EOF while parsing a value at line 1 column 9)")

    def test_openai_loop_with_a_fake_model(self):
        example = load("openai_function_calling")
        sent = []

        def create(model, messages, tools):
            sent.append(([message if isinstance(message, dict) else "assistant" for message in messages], tools))
            if len(sent) == 1:
                call = Reply(id="c1", type="function",
                             function=Reply(name="read_file", arguments='{"path": "five.txt", "limit": 2}'))
                message = Reply(role="assistant", content=None, tool_calls=[call])
            else:
                message = Reply(role="assistant", content="It counts to five.", tool_calls=None)
            return Reply(choices=[Reply(message=message)])

        client = Reply(chat=Reply(completions=Reply(create=create)))
        fake = types.ModuleType("openai")
        fake.OpenAI = lambda: client
        self.in_dir()
        with mock.patch.dict(sys.modules, {"openai": fake}):
            self.assertEqual(example.run("What is in five.txt?"), "It counts to five.")
        self.assertEqual(len(sent), 2)
        self.assertEqual([tool["function"]["name"] for tool in sent[0][1]], ["read_file", "list_directory", "read_files", "search", "check_write"])
        self.assertEqual(sent[1][0][2], {"role": "tool", "tool_call_id": "c1", "content": self.window})

    def test_anthropic_tool_results_carry_the_text_and_the_error_flag(self):
        example = load("anthropic_tool_use")
        tools = example.tool_definitions(self.session)
        self.assertEqual([tool["name"] for tool in tools], ["read_file", "list_directory", "read_files", "search", "check_write"])
        self.assertIn("input_schema", tools[0])
        content = [{"type": "text", "text": "Let me read it."},
                   {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "five.txt", "limit": 2}},
                   Reply(type="tool_use", id="t2", name="check_write",
                         input={"path": "five.txt", "text": "1|one\n2|two\n"})]
        results = example.tool_results(self.session, content)
        self.assertEqual(results[0], {"type": "tool_result", "tool_use_id": "t1", "content": self.window,
                                      "is_error": False})
        self.assertEqual((results[1]["tool_use_id"], results[1]["is_error"]), ("t2", True))
        self.assertEqual(len(results), 2)

    def test_anthropic_loop_with_a_fake_model(self):
        example = load("anthropic_tool_use")
        sent = []

        def create(model, max_tokens, messages, tools):
            sent.append((list(messages), tools))
            if len(sent) == 1:
                block = Reply(type="tool_use", id="u1", name="read_file", input={"path": "five.txt", "limit": 2})
                return Reply(stop_reason="tool_use", content=[block])
            return Reply(stop_reason="end_turn", content=[Reply(type="text", text="Five lines.")])

        fake = types.ModuleType("anthropic")
        fake.Anthropic = lambda: Reply(messages=Reply(create=create))
        self.in_dir()
        with mock.patch.dict(sys.modules, {"anthropic": fake}):
            self.assertEqual(example.run("What is in five.txt?"), "Five lines.")
        self.assertEqual([tool["name"] for tool in sent[0][1]], ["read_file", "list_directory", "read_files", "search", "check_write"])
        self.assertEqual(sent[1][0][2], {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "u1", "content": self.window, "is_error": False}]})

    def test_agents_sdk_tool_handler_returns_the_components_text(self):
        example = load("openai_agents_sdk")
        specs = example.tool_specs(self.session)
        self.assertEqual([spec["name"] for spec in specs], ["read_file", "list_directory", "read_files", "search", "check_write"])
        self.assertEqual(specs[0]["params_json_schema"]["type"], "object")
        text = asyncio.run(specs[0]["on_invoke_tool"](None, json.dumps({"path": "five.txt", "limit": 2})))
        self.assertEqual(text, self.window)
        self.assertEqual(asyncio.run(specs[4]["on_invoke_tool"](None, '{"path": "five.txt", "text": "plain\\n"}')),
                         "ok")

    def test_agents_sdk_loop_with_a_fake_runner(self):
        example = load("openai_agents_sdk")
        fake = types.ModuleType("agents")
        fake.FunctionTool = lambda **fields: Reply(**fields)
        fake.Agent = lambda **fields: Reply(**fields)

        def run_sync(agent, question):
            read_file = next(tool for tool in agent.tools if tool.name == "read_file")
            self.assertFalse(read_file.strict_json_schema)
            text = asyncio.run(read_file.on_invoke_tool(None, '{"path": "five.txt", "limit": 2}'))
            return Reply(final_output=text)

        fake.Runner = Reply(run_sync=run_sync)
        self.in_dir()
        with mock.patch.dict(sys.modules, {"agents": fake}):
            self.assertEqual(example.run("What is in five.txt?"), self.window)

    def test_importing_read_window_imports_no_model_sdk(self):
        code = "import sys, read_window; print(sorted({'openai', 'anthropic', 'agents'} & set(sys.modules)))"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": str(EXAMPLES.parent)})
        self.assertEqual(out.stdout.strip(), "[]")


if __name__ == "__main__":
    unittest.main()
