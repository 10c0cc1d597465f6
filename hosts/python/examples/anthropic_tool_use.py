"""read-window as an Anthropic tool-use tool (Messages API), with no Anthropic code in read_window.

The tool definitions are the component's (``{"op": "tools", "format": "anthropic"}``); each ``tool_use`` block
goes to the component as it came (``tool_call`` with its ``input``), and the answer's ``text`` goes back in a
``tool_result`` block (``is_error`` when the answer is an error).

Run: ``pip install read-window anthropic``, set ``ANTHROPIC_API_KEY``, then ``python anthropic_tool_use.py "What
does README.md say about installing?"`` in the directory to read.
"""

import os
import sys
from typing import Any, Dict, List

from read_window import ReadWindow, Session


def tool_definitions(session: Session) -> List[Dict[str, Any]]:
    """The tools (``read_file``, ``list_directory``, ``read_files``, ``search``, ``check_write``) as the Messages API's ``tools`` parameter wants them."""
    return session.request({"op": "tools", "format": "anthropic"})["tools"]


def tool_results(session: Session, content: List[Any]) -> List[Dict[str, Any]]:
    """One ``tool_result`` block per ``tool_use`` block of the assistant's ``content`` (the SDK's blocks or their
    dicts): ``content`` the component's ``text``, ``is_error`` when its answer is an error."""
    results = []
    for block in content:
        block = block if isinstance(block, dict) else block.model_dump()
        if block.get("type") != "tool_use":
            continue
        answer = session.request({"op": "tool_call", "name": block["name"], "arguments": block["input"]})
        results.append({"type": "tool_result", "tool_use_id": block["id"], "content": answer["text"],
                        "is_error": answer.get("status") == "error"})
    return results


def run(question: str, model: str = "claude-sonnet-4-5", max_turns: int = 8) -> str:
    """Asks ``model`` the ``question`` with read-window's tools over the current directory; returns its answer."""
    import anthropic  # only this example needs the SDK

    client = anthropic.Anthropic()
    with ReadWindow().session([os.getcwd()]) as session:
        tools = tool_definitions(session)
        messages: List[Dict[str, Any]] = [{"role": "user", "content": question}]
        for _ in range(max_turns):
            reply = client.messages.create(model=model, max_tokens=4096, messages=messages, tools=tools)
            if reply.stop_reason != "tool_use":
                return "".join(block.text for block in reply.content if block.type == "text")
            messages.append({"role": "assistant", "content": reply.content})
            messages.append({"role": "user", "content": tool_results(session, reply.content)})
    return "(no answer within the turn limit)"


if __name__ == "__main__":
    print(run(" ".join(sys.argv[1:]) or "Summarize README.md."))
