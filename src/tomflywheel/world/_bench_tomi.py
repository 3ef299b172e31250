"""ToMi release files (bAbI ``.txt`` + ``.trace``) as check items, and ToMi's convention gaps."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tomflywheel.errors import DataError
from tomflywheel.world._checkitem import CheckItem
from tomflywheel.world._events import Enter, Exit, Move, Place, Story
from tomflywheel.world._parse import parse_story
from tomflywheel.world._qparse import parse_question


def tomi_files(path: Path) -> list[Path]:
    """The ``.txt`` files at ``path`` (a file, or a folder of splits), sorted."""
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob("*.txt"))
        if not files:
            raise DataError(path, None, None, "no ToMi .txt files in this folder")
        return files
    if not path.exists():
        raise DataError(path, None, None, "no such file or folder")
    return [path]


def _examples(path: Path) -> Iterator[tuple[int, list[str], str, str]]:
    story: list[str] = []
    with path.open(encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.rstrip("\n")
            if not line.strip():
                continue
            head, _, rest = line.partition(" ")
            if not head.isdigit():
                raise DataError(path, number, None, "a bAbI line starts with its number")
            if head == "1":
                story = []
            if "\t" in rest:
                question, answer, *_ = rest.split("\t")
                yield number, list(story), question, answer
            else:
                story.append(line)


def _question_type(story: Story, chain: tuple[str, ...], kind: str, gold: str) -> str:
    """ToMi's label when no ``.trace`` is given: ``_0`` asks about the mover, ``_1`` the other."""
    if kind in ("memory", "reality"):
        return kind
    movers = [event.agent for event in story.events if isinstance(event, Move)]
    final = [event.container for event in story.events if isinstance(event, Place | Move)]
    index = 0 if movers and chain[0] == movers[0] else 1
    order = {1: "first", 2: "second", 3: "third", 4: "fourth"}.get(len(chain), str(len(chain)))
    tom = "tom" if final and gold != final[-1] else "no_tom"
    return f"{order}_order_{index}_{tom}"


def load_tomi(path: Path) -> Iterator[CheckItem]:
    """Every question of the ToMi files at ``path`` (a ``.txt`` file or a folder of splits).

    The question type comes from the sibling ``.trace`` file when there is one.

    Raises:
        DataError: A malformed line, an unparsable sentence, or a trace of another length.
    """
    for file in tomi_files(path):
        trace_path = file.with_suffix(".trace")
        traces = trace_path.read_text(encoding="utf-8").split("\n") if trace_path.exists() else None
        split = file.stem.rsplit("_", 1)[-1]
        for count, (number, lines, question, gold) in enumerate(_examples(file)):
            story = parse_story("\n".join(lines), "tomi", source=str(file))
            spec = parse_question(question, "tomi", story, source=f"{file}:{number}")
            if traces is not None:
                if count >= len(traces) or not traces[count]:
                    raise DataError(trace_path, count + 1, None, "fewer traces than questions")
                qtype = traces[count].split(",")[-2]
            else:
                qtype = _question_type(story, spec.chain, spec.kind, gold)
            yield CheckItem(f"{split}-{count:05d}", qtype, question, story, spec, gold)


def tomi_cause(item: CheckItem) -> str:
    """Name the ToMi convention behind a gap between its gold and the principled default."""
    story, chain = item.story, item.spec.chain
    places = [event for event in story.events if isinstance(event, Place)]
    if len(chain) != 2 or not places:
        return "unexplained"
    room = places[0].room
    entered: set[str] = set()
    left: set[str] = set()
    for event, line in zip(story.events, story.lines, strict=True):
        if isinstance(event, Exit) and event.room == room:
            left.add(event.agent)
        if not isinstance(event, Enter) or event.room != room:
            continue
        for agent in event.agents:
            if agent not in chain:
                return (
                    f"third-party entry: {agent} entered the {room} (line {line}); ToMi's oracle "
                    f"applies that entry after the story and counts {chain[0]} and {chain[1]} as "
                    "seeing each other learn the final location"
                )
            if agent in entered:
                other = chain[1] if agent == chain[0] else chain[0]
                absent = " after " + other + " had left" if other in left else ""
                return (
                    f"re-entry: {agent} re-entered the {room} (line {line}){absent}; ToMi's "
                    f"oracle counts {other} as knowing {agent} saw the object there"
                )
            entered.add(agent)
    return "unexplained"
