"""A two-story OpenToM release written by the tests, in the layout of ``seacowx/OpenToM``.

Same files, keys and field shapes as ``data/opentom_data/`` (read through the code index, see
``docs/importers.md``); the stories and names are made up here, no release text is copied.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SEEN, UNSEEN = "10000001", "20000002"
"""Story ids: the observer saw the move in the first story and missed it in the second."""

PLOTS = {
    SEEN: {
        "mover": "Ana",
        "eoi": "kite",
        "original_place": "basket",
        "move_to_place": "a storage bin",
        "observer": "Ben",
    },
    UNSEEN: {
        "mover": "Cleo",
        "eoi": "plum",
        "original_place": "treasure_chest",
        "move_to_place": "the fridge",
        "observer": "Dev",
    },
}


def _story(key: str, long: bool) -> dict[str, Any]:
    plot = PLOTS[key]
    observed = key == SEEN
    record: dict[str, Any] = {
        "plot": f"{plot['mover']} entered the hall.\n{plot['observer']} entered the hall.",
        "plot_info": plot,
        "preferences": {"mover": "", "observer": "", "mover_observer": "", "observer_mover": ""},
        "personality": f"{plot['mover']} is a considerate person.",
        "sentiment_statement": "",
        "true_sentiment": "the most considerate",
        "intention": "keep it safe",
        "new_location": plot["move_to_place"],
        "observed": observed,
        "narrative": f"Short story {key}: {plot['mover']} moves the {plot['eoi']}.",
    }
    if long:
        record["long_narrative"] = f"Long story {key}: {plot['mover']} moves the {plot['eoi']}."
    return record


def _q(question: str, answer: Any, kind: str) -> dict[str, Any]:
    return {"question": question, "answer": answer, "type": kind}


def _questions(key: str, *, old_fine: bool = False) -> dict[str, list[dict[str, Any]]]:
    p = PLOTS[key]
    m, o, e, a, b = p["mover"], p["observer"], p["eoi"], p["original_place"], p["move_to_place"]
    seen = key == SEEN
    # The observer's belief: the new place when seen, the old one when not. The old fine files
    # of the release had it the other way round in places; old_fine writes that version.
    obs = b if seen != old_fine else a
    fo, so = "location-fo", "location-so"
    return {
        "location_cg_fo": [
            _q(
                f"From {m}'s perspective, is the {e} in its initial location by the end of the "
                "story?",
                "No",
                fo,
            ),
            _q(
                f"From {o}'s perspective, is the {e} in its initial location by the end of the "
                "story?",
                "No" if seen else "Yes",
                fo,
            ),
        ],
        "location_cg_so": [
            _q(
                f"From {m}'s perspective, does {o} think that the {e} is in its initial location "
                "by the end of the story?",
                "No",
                so,
            ),
            _q(
                f"From {o}'s perspective, does {m} think that the {e} is in its initial location "
                "by the end of the story?",
                "No" if seen else "Yes",
                so,
            ),
        ],
        "location_fg_fo": [
            _q(
                f"From narrator's perspective, where is {e} located by the end of the story?", b, fo
            ),
            _q(
                f"From narrator's perspective, where is {e} located in the beginning of the story?",
                a,
                fo,
            ),
            _q(
                f"From {m}'s perspective, where is the {e} located precisely by the end of the "
                "story?",
                b,
                fo,
            ),
            _q(
                f"From {o}'s perspective, where is the {e} located precisely by the end of the "
                "story?",
                obs,
                fo,
            ),
        ],
        "location_fg_so": [
            _q(
                f"From {m}'s perspective, where precisely does {o} think that the {e} is located "
                "by the end of the story?",
                b,
                so,
            ),
            _q(
                f"From {o}'s perspective, where precisely does {m} think that the {e} is located "
                "by the end of the story?",
                obs,
                so,
            ),
        ],
        "multihop_fo": [
            *(
                _q(
                    f"From {who}'s perspective, how does {place}'s fullness change by the end of "
                    "the story?",
                    answer,
                    "multihop-fo",
                )
                for place, full in ((a, "less full"), (b, "more full"))
                for who, answer in ((m, full), (o, full if seen else "equally full"))
            ),
            _q(
                f"From {m}'s perspective, how would {e}'s accessibility change by the end of the "
                "story?",
                "less accessible",
                "multihop-fo",
            ),
            _q(
                f"From {o}'s perspective, how would {e}'s accessibility change by the end of the "
                "story?",
                "less accessible" if seen else "equally accessible",
                "multihop-fo",
            ),
        ],
        "multihop_so": [
            *(
                _q(
                    f"From {who}'s perspective, how does {other} think {place}'s fullness would "
                    "change by the end of the story?",
                    answer,
                    "multihop-so",
                )
                for place, full in ((a, "less full"), (b, "more full"))
                for who, other, answer in ((m, o, full), (o, m, full if seen else "equally full"))
            ),
            _q(
                f"From {m}'s perspective, how would {e}'s accessibility change for {o} by the end "
                "of the story?",
                "less accessible",
                "multihop-so",
            ),
            _q(
                f"From {o}'s perspective, how would {e}'s accessibility change for {m} by the end "
                "of the story?",
                "less accessible" if seen else "equally accessible",
                "multihop-so",
            ),
        ],
        "attitude": [
            _q(
                f"As {o}, what is your attitude towards {m}'s action of moving {e} from {a} to "
                f"{b}?",
                "negative" if seen else "neutral",
                "attitude",
            ),
        ],
    }


FILE_NAMES = {
    "location_cg_fo": "location_cg_fo.json",
    "location_cg_so": "location_cg_so.json",
    "location_fg_fo": "location_fg_fo_new.json",
    "location_fg_so": "location_fg_so_new.json",
    "multihop_fo": "multihop_fo.json",
    "multihop_so": "multihop_so.json",
    "attitude": "attitude.json",
}


def dump(path: Path, document: Any) -> Path:
    """Write JSON as the release does (4-space indent)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=4), encoding="utf-8")
    return path


def write_opentom(
    folder: Path, *, hugging_face_names: bool = False, old_fine_files: bool = True
) -> Path:
    """Write ``folder`` as an ``opentom_data`` folder; returns it.

    Args:
        folder: Where to write.
        hugging_face_names: Name the metadata ``metadata.json`` as on Hugging Face (else
            ``meta_data.json`` as on GitHub).
        old_fine_files: Also write the superseded ``location_fg_{fo,so}.json`` (GitHub has both).
    """
    meta = "metadata" if hugging_face_names else "meta_data"
    dump(folder / f"{meta}.json", {key: _story(key, False) for key in PLOTS})
    dump(folder / f"{meta}_long.json", {UNSEEN: _story(UNSEEN, True)})
    per_story = {key: _questions(key) for key in PLOTS}
    for tag, name in FILE_NAMES.items():
        document = {key: per_story[key][tag] for key in PLOTS}
        if tag == "attitude":
            # A question file may hold stories the metadata lacks; the official runner skips them.
            document["99999999"] = per_story[SEEN][tag]
        dump(folder / name, document)
    if old_fine_files:
        old = {key: _questions(key, old_fine=True) for key in PLOTS}
        for tag in ("location_fg_fo", "location_fg_so"):
            dump(folder / f"{tag}.json", {key: old[key][tag] for key in PLOTS})
    return folder
