"""read-window as an OpenAI function-calling tool (Chat Completions), with no OpenAI code in read_window.

The tool definitions are the component's (``{"op": "tools", "format": "openai"}``); each tool call the model makes
goes to the component (``tool_call`` with the call's ``arguments``, the JSON text OpenAI sends read as its object),
and the answer's ``text`` is what goes back to the model.

Run: ``pip install read-window openai``, set ``OPENAI_API_KEY``, then ``python openai_function_calling.py "What does
README.md say about installing?"`` in the directory to read.
"""

import json
import os
import sys
from typing import Any, Dict, List

from read_window import ReadWindow, Session


def tool_definitions(session: Session) -> List[Dict[str, Any]]:
    """The tools (``read_file``, ``list_directory``, ``read_files``, ``search``, ``check_write``) as OpenAI's ``tools`` parameter wants them."""
    return session.request({"op": "tools", "format": "openai"})["tools"]


def arguments_of(text: str) -> Any:
    """A call's ``arguments`` (OpenAI sends them as JSON text) as the object they hold; text that is not JSON goes
    to the component as it is, which refuses it with a message the model can act on."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def tool_messages(session: Session, tool_calls: List[Any]) -> List[Dict[str, Any]]:
    """One ``{"role": "tool", "tool_call_id", "content"}`` message per call of the assistant's ``tool_calls`` (the
    SDK's objects or their dicts), ``content`` the component's ``text`` for the call."""
    messages = []
    for call in tool_calls:
        call = call if isinstance(call, dict) else call.model_dump()
        function = call["function"]
        answer = session.request({"op": "tool_call", "name": function["name"],
                                  "arguments": arguments_of(function["arguments"])})
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": answer["text"]})
    return messages


def run(question: str, model: str = "gpt-4.1-mini", max_turns: int = 8) -> str:
    """Asks ``model`` the ``question`` with read-window's tools over the current directory; returns its answer."""
    from openai import OpenAI  # only this example needs the SDK

    client = OpenAI()
    with ReadWindow().session([os.getcwd()]) as session:
        tools = tool_definitions(session)
        messages: List[Any] = [{"role": "user", "content": question}]
        for _ in range(max_turns):
            reply = client.chat.completions.create(model=model, messages=messages, tools=tools).choices[0].message
            if not reply.tool_calls:
                return reply.content or ""
            messages.append(reply)
            messages.extend(tool_messages(session, reply.tool_calls))
    return "(no answer within the turn limit)"


if __name__ == "__main__":
    print(run(" ".join(sys.argv[1:]) or "Summarize README.md."))
