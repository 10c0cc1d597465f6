"""read-window as tools of an OpenAI Agents SDK agent, with no Agents SDK code in read_window.

Each tool is a ``FunctionTool`` whose name, description and JSON Schema are the component's
(``{"op": "tools", "format": "openai"}``) and whose handler hands the model's arguments (the JSON text the SDK
gives, read as its object) to the component (``tool_call``), returning the answer's ``text``. One session serves the agent's run, so
repeated reads get the "unchanged" stub and the loop tripwire sees them.

Run: ``pip install read-window openai-agents``, set ``OPENAI_API_KEY``, then ``python openai_agents_sdk.py "What
does README.md say about installing?"`` in the directory to read.
"""

import json
import os
import sys
from typing import Any, Awaitable, Callable, Dict, List

from read_window import ReadWindow, Session


def tool_handler(session: Session, name: str) -> Callable[[Any, str], Awaitable[str]]:
    """The ``on_invoke_tool`` of the tool ``name``: ``(context, arguments as JSON text) -> the answer's text``."""

    async def invoke(context: Any, arguments: str) -> str:
        try:
            parsed = json.loads(arguments)
        except ValueError:  # not JSON: the component refuses it with a message the model can act on
            parsed = arguments
        return session.request({"op": "tool_call", "name": name, "arguments": parsed})["text"]

    return invoke


def tool_specs(session: Session) -> List[Dict[str, Any]]:
    """Each tool's ``name``, ``description``, ``params_json_schema`` and ``on_invoke_tool``: the arguments of the
    SDK's ``FunctionTool``."""
    specs = []
    for tool in session.request({"op": "tools", "format": "openai"})["tools"]:
        function = tool["function"]
        specs.append({"name": function["name"], "description": function["description"],
                      "params_json_schema": function["parameters"],
                      "on_invoke_tool": tool_handler(session, function["name"])})
    return specs


def run(question: str) -> str:
    """Runs an agent with read-window's tools over the current directory on ``question``; returns its answer."""
    from agents import Agent, FunctionTool, Runner  # only this example needs the SDK

    with ReadWindow().session([os.getcwd()]) as session:
        # The schemas are JSON Schema, not OpenAI's strict subset (optional fields are not all required).
        tools = [FunctionTool(**spec, strict_json_schema=False) for spec in tool_specs(session)]
        agent = Agent(name="reader", instructions="Answer from the files; read them with read_file.", tools=tools)
        return Runner.run_sync(agent, question).final_output


if __name__ == "__main__":
    print(run(" ".join(sys.argv[1:]) or "Summarize README.md."))
