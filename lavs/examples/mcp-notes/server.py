"""The mcp-notes example's MCP server: the official MCP Python SDK (FastMCP) over stdio, started
by the LAVS runtime from mcp-config.json with the service's folder as its working directory.
Notes are kept in data/notes.json there."""

import json
import pathlib
from typing_extensions import TypedDict  # typing.TypedDict needs Python 3.12 for pydantic

from mcp.server.fastmcp import FastMCP

NOTES = pathlib.Path("data/notes.json")
server = FastMCP("notes")


# Typed results: the SDK returns them as the result's structuredContent, which is the endpoint's
# output as it is.
class Note(TypedDict):
    id: int
    text: str


class Notes(TypedDict):
    notes: list[Note]


def load() -> list[Note]:
    return json.loads(NOTES.read_text()) if NOTES.exists() else []


def save(notes: list[Note]) -> None:
    NOTES.parent.mkdir(exist_ok=True)
    NOTES.write_text(json.dumps(notes))


@server.tool()
def add_note(text: str) -> Note:
    """Adds a note and returns it with its id."""
    notes = load()
    note = Note(id=max((n["id"] for n in notes), default=0) + 1, text=text)
    save(notes + [note])
    return note


@server.tool()
def list_notes() -> Notes:
    """All notes, oldest first."""
    return Notes(notes=load())


@server.tool()
def delete_note(id: int):
    """Deletes a note; a note that does not exist is an error (the result's isError)."""
    notes = load()
    if not any(n["id"] == id for n in notes):
        raise ValueError(f"there is no note {id}")
    save([n for n in notes if n["id"] != id])
    return {"deleted": id}


if __name__ == "__main__":
    server.run()
