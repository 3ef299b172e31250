"""Where each supported benchmark's files come from: a URL at a pinned commit, size, sha256.

Every ``path`` is the file's place in the fetch folder, the same relative path as in the
project's shared copy of the benchmarks (each folder's ``SOURCE.md`` names the origin repository,
commit and original path); sizes and sha256 were computed from those copies. FANToM's archive is
pinned by its authors' own loader (sha256 only); ToMi's zip is not pinned, its members are.

Long only because it is a table: a sha256 does not fit on a line beside its path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from tomflywheel._io import sha256_file
from tomflywheel.config import cache_root

_RAW = "https://raw.githubusercontent.com"


@dataclass(frozen=True, slots=True)
class PinnedFile:
    """One file of a benchmark, checked by sha256 before it is used."""

    path: str
    """Relative path in the fetch folder."""
    url: str
    """Public URL of the exact file (an archive's URL for archive members)."""
    sha256: str
    """Hex digest the file must have."""
    size: int | None
    """Size in bytes; ``None`` where not known in advance (FANToM's archive)."""


@dataclass(frozen=True, slots=True)
class Archive:
    """An unpinned archive whose members are pinned (ToMi's release zip)."""

    path: str
    """Where the archive is downloaded (removed once its members are extracted)."""
    url: str
    """Public URL of the archive."""
    members: tuple[tuple[str, PinnedFile], ...]
    """(file name inside the archive, the pinned file it becomes)."""


@dataclass(frozen=True, slots=True)
class Source:
    """A benchmark's pinned public files and what to import from them."""

    name: str
    """Dataset (importer) name."""
    origin: str
    """Repository and commit (or host) the files come from."""
    license: str
    """The license line as stated upstream."""
    import_path: str
    """Relative path handed to the importer."""
    files: tuple[PinnedFile, ...] = ()
    """Files downloaded one by one."""
    archive: Archive | None = None
    """Files that come out of one archive."""
    evaluation_only: str = ""
    """The authors' request to use the data for evaluation only (quoted), if they make one."""

    def pinned(self) -> tuple[PinnedFile, ...]:
        """Every file the benchmark needs (archive members included)."""
        members = tuple(f for _, f in self.archive.members) if self.archive else ()
        return self.files + members


def _github(repo: str, commit: str, path: str) -> str:
    return f"{_RAW}/{repo}/{commit}/{quote(path)}"


def _files(repo: str, commit: str, rows: list[tuple[str, str, int, str]]) -> tuple[PinnedFile, ...]:
    """``rows``: (original path, local path, size, sha256)."""
    return tuple(
        PinnedFile(path=local, url=_github(repo, commit, original), sha256=sha, size=size)
        for original, local, size, sha in rows
    )


_TOMI_REPO = ("facebookresearch/ToMi", "dea2bca9b366c41cdab0bd717353cc02453e193e")
_TOMI_MEMBERS = [
    (
        "fb_all_test.trace",
        748107,
        "a65b8dbee66475ba78389ba7cea8522162a5abb659ffe076d90d60e892858dff",
    ),
    (
        "fb_all_test.txt",
        1897666,
        "7e76981b390c71057736619355ba78afb896dfa93c92547f31a085c69788f3a6",
    ),
    (
        "fb_all_train.trace",
        753969,
        "ed44ea23e432d8255cab88efacf46b7a0a33941ed92fefad3c7037442ca796aa",
    ),
    (
        "fb_all_train.txt",
        1904221,
        "59cb2918e6f82322ee6a8e5d34da2f48b903354260ab75c09f64848e4a77363e",
    ),
    (
        "fb_all_val.trace",
        753051,
        "27a3cfd9475e90426bcd5028d808c7a2316a3450a759c0c1391babc5d5a9fd89",
    ),
    ("fb_all_val.txt", 1908556, "b7ca6792e69b01063e41874896c9968b46871b91e0cbdb73ac808c9779735640"),
]
_TOMI_ZIP = _github(*_TOMI_REPO, "tomi_balanced_story_types.zip")

_BIGTOM_CONDITIONS = [
    (
        "0_backward_belief_false_belief",
        119039,
        "37b1d36422299d01c5d0b5f806c85ff83b589047dbb4426195816b94ad5a9abc",
    ),
    (
        "0_backward_belief_false_control",
        109424,
        "1f60f5f88d45eb64fc07aed3c493829c720dafac5d1625da01e465deae10526e",
    ),
    (
        "0_backward_belief_true_belief",
        119685,
        "409db1f5b1bc0f71391c8cfc5d135bc2c87bd51dc6a05cab3bf65b3f5cb3f2c0",
    ),
    (
        "0_backward_belief_true_control",
        109424,
        "1f60f5f88d45eb64fc07aed3c493829c720dafac5d1625da01e465deae10526e",
    ),
    (
        "0_forward_action_false_belief",
        109913,
        "752c87d836624247a1d1f59bd83fb3290ad2b4c6d186d115644c10472556b4a4",
    ),
    (
        "0_forward_action_false_control",
        100340,
        "f8d43e0a52448a0d9889730ad07673153b0bfe8c7a30a2ff8c701ef118714c61",
    ),
    (
        "0_forward_action_true_belief",
        108558,
        "131b6c6b4f563f77fbe5ac561c4ec852fc95f0cd87e71ade052bf41bffbed229",
    ),
    (
        "0_forward_action_true_control",
        98317,
        "560368c2b5e3da1c50d60d116bca55456b05a14b993201cb5679d5d135c492ec",
    ),
    (
        "0_forward_belief_false_belief",
        118712,
        "c4ceadb26e6ef3f63aa2bfdf82cf751fb6a549582091b645a6f9459b8ac36e65",
    ),
    (
        "0_forward_belief_false_control",
        109139,
        "ab5da1c5ae76c5f8f6de266c4c17888d5182b2bf0475d54f667b4152714386f8",
    ),
    (
        "0_forward_belief_true_belief",
        117357,
        "220c1be62f33e127343885446131808064fc236b43a56151265154a237479091",
    ),
    (
        "0_forward_belief_true_control",
        107116,
        "a5bd225233763bba75a44c48409a134138359f1b4492e91b0c93b40fc045a460",
    ),
    (
        "1_backward_belief_false_belief",
        131910,
        "037d2fd60f27b2d3b24a81b05286181ba9d5177399804776c2438a0a700e861a",
    ),
    (
        "1_backward_belief_false_control",
        122295,
        "42a7e647fa2496adf58f978d3568fed241f823f5783c14b1a3ca9ba1d496b81c",
    ),
    (
        "1_backward_belief_true_belief",
        132556,
        "edc32c1c3b411f345117ab56f9aea4e4952b81afb8810fca05481c0f57902cb3",
    ),
    (
        "1_backward_belief_true_control",
        122295,
        "42a7e647fa2496adf58f978d3568fed241f823f5783c14b1a3ca9ba1d496b81c",
    ),
    (
        "1_forward_action_false_belief",
        122784,
        "d695b21268319be9b285f37707c98633cbdeb32f82e9b64f73d266c043ccef23",
    ),
    (
        "1_forward_action_false_control",
        113211,
        "785763b59c46b2a993011da89434f014f89cbd061c3161912bf0fe54eb317adc",
    ),
    (
        "1_forward_action_true_belief",
        121429,
        "1da2c4567ebfa68bad089e001cdb25dfbcd9e82af822b05db735e778b3782e6e",
    ),
    (
        "1_forward_action_true_control",
        111188,
        "b6e119ac67cb325dbd0b3038737eccb7501abf09a5c4b6fecdc4804a1a430788",
    ),
    (
        "1_forward_belief_false_belief",
        131583,
        "87f771ad4b57011ccebeb8766e4b6dd578f2de4d695d025a0d868b490efa2882",
    ),
    (
        "1_forward_belief_false_control",
        122010,
        "0cad7898dceff7f36246fe937bb2700dd2758dca68b3e9b8a7d9f0c8994b8328",
    ),
    (
        "1_forward_belief_true_belief",
        130228,
        "aa8d16b373e2d2718f952ccea91632e6077207041fa71c688004b80a084b7be7",
    ),
    (
        "1_forward_belief_true_control",
        119987,
        "d1d2fd9079616c837c6ded023f197695b65b55c0e184a319f2041c6e68a1fb53",
    ),
    (
        "1_percept_to_belief_true_belief",
        84817,
        "65f321dc45b48bd641bd29c475e8d09d497242307d86939c913d770052a4ef53",
    ),
]

_TOMBENCH = [
    (
        "Ambiguous Story Task",
        403001,
        "c99f365b6d3d0e982228623d4328afbafe11cf9a8da3a2838ed6c846e4f154d0",
    ),
    (
        "Completion of Failed Actions",
        34388,
        "cb68348ef3eb53d7c6bf0e426b9279856264748b94f181ce042c91dcf56ba5af",
    ),
    (
        "Discrepant Desires",
        31122,
        "73093d99923efac243e3610c393613c000b5dc04f88771c39a3b641b993a6b70",
    ),
    (
        "Discrepant Emotions",
        27502,
        "100b7f05ba5b76aeaa8d2daf3897c90c6a4f08dc23b75a0dd87be0e82db11bf4",
    ),
    (
        "Discrepant Intentions",
        88188,
        "d72c8353aa5b65f35073d72808996b6f8e980f7683539e25510a251ed8f1dac2",
    ),
    (
        "Emotion Regulation",
        47505,
        "553d0ee61733cddfa3a9c531c3f7306c40929edc9f0e1e1dda7088ed8804c96c",
    ),
    (
        "False Belief Task",
        574548,
        "1a5c38362c4c883b219381e24d7b51c1f60abd959f39b6dc3e977ca11d7abff8",
    ),
    (
        "Faux-pas Recognition Test",
        883265,
        "374272690aedfe34529cb83fc4368a38960da288fb8d787a7bf50aba65dd349c",
    ),
    ("Hidden Emotions", 77644, "57d0882eafddca8fb8d81148bf4291db0c5c6bbdd3a8ad5004c445d249b05124"),
    (
        "Hinting Task Test",
        140148,
        "fd3a930403c7e0514e8730c48030da17d8bcd8a453e96001ca0795cbaee61afa",
    ),
    (
        "Knowledge-Attention Links",
        44564,
        "9ea4c7bfc2086d4ebaa2a31cc1993ea2774f72e642d7415dbb9c9c0e21ead94f",
    ),
    (
        "Knowledge-Pretend Play Links",
        45125,
        "67e3d451089db0a3ac4a7702f4c6c58c2909dbe338aa53bda5e00e4cf9396242",
    ),
    ("Moral Emotions", 94948, "fac3eb293d2901b35274eab8244515b7e138e9cb3311037d5c4a0bda3810dd51"),
    ("Multiple Desires", 28158, "7a49186ab802a2a199806ca191160019ae21d9ff85db9203799fb36b8960a914"),
    (
        "Percepts-Knowledge Links",
        35406,
        "dda5b279b926eef0e0c440cef4ef68cbebbf82fc6c7b109b213c15c2f9d94804",
    ),
    (
        "Persuasion Story Task",
        152968,
        "aefef5b6beb7097370cf3bc0c6503ed8caa495530297a4b184c4c31002e23169",
    ),
    (
        "Prediction of Actions",
        33204,
        "23c56589e459d253bafc2cdc0ea786fba1912c8bf388861a96042666f10b8a47",
    ),
    (
        "Scalar Implicature Test",
        280234,
        "4264d1842f556f8bcfd7fd56c5058aa8c55f6001931d27d253a85d7ecc19247e",
    ),
    (
        "Strange Story Task",
        585391,
        "f0a1c6e12b9d9b8b5c936ea3383b24100ef28ed6610078c1fc7bd6769d7ef914",
    ),
    (
        "Unexpected Outcome Test",
        337138,
        "f4ee872c98e17480272c40d5406a8eca31eed29b455f4155b9684328bf6dbf9c",
    ),
]

_PROCEDURAL = ("cicl-stanford/procedural-evals-tom", "fe647d680bddb69f738519313bed625f9e93b549")
_EMOBENCH = ("Sahandfer/EmoBench", "3b4f84312541f8469e909965e1fff3691ef85c62")
_EMOBENCH_FILES = _files(
    *_EMOBENCH,
    [
        (
            "data/EU.jsonl",
            "emobench/data/EU.jsonl",
            408503,
            "60140a7617779bdb496cd50dcebaf33037c39c65821ae300a6a24a72fd7c7037",
        ),
        (
            "data/EA.jsonl",
            "emobench/data/EA.jsonl",
            238628,
            "344c84913ed4adc9f26261a03cc4ddbecceeef4fcb8f77ab0405f8a63e8a4628",
        ),
    ],
)
_TOMI_LICENSE = "CC BY-NC 4.0 (facebookresearch/ToMi README and LICENSE)"


def _sources() -> dict[str, Source]:
    tomi_members = tuple(
        (name, PinnedFile(f"tomi/tomi_balanced_story_types/{name}", _TOMI_ZIP, sha, size))
        for name, size, sha in _TOMI_MEMBERS
    )
    tgtom = ("singularity4/TemporalGraph-ToM", "9af985a2b01469cd2a832c6442b05df2fd3d3f0f")
    tgtom_rows = [
        (
            "stories_v10.jsonl",
            151482,
            "88f6de452b4e9e4d977ef0385c5f194748d9f89ba50479628b5807fc044aeea8",
        ),
        (
            "higher_order_beliefs_v10.jsonl",
            187863,
            "2dc15767bfe869953109646638188558d577861f4e7c670f9f4f67c17974a709",
        ),
        (
            "counterfactual_beliefs_v10.jsonl",
            207850,
            "737c8106260d4645470ea1d880c33e31ff5132671bd162cf7792b9207b097c6c",
        ),
        (
            "causal_beliefs_v10.jsonl",
            37339,
            "9e8db014652fb1e1002a811be0f9558a7bbd1bb302334abb834d099b6fe87c39",
        ),
        (
            "common_knowledge_v10.jsonl",
            136193,
            "2f16e2925de8f1356d31a8203746c3e4891ebda559b37432229659fc02ca561b",
        ),
    ]
    adv = ("salavi/Clever_Hans_or_N-ToM", "a16b224e3b046405f14d59439fb58c8a548aa801")
    adv_rows = [
        (
            "unexpected_contents.jsonl",
            54560,
            "69218754c3cbdfe825ce21af4d8cac48494fda3bd80b722a382d7795595936c7",
        ),
        (
            "unexpected_transfer.jsonl",
            57614,
            "f15058120c9b37aa4f3942421514066e47f876d7db2735cdbf32f4d978737631",
        ),
        (
            "unexpected_contents_source.json",
            1874,
            "b32253542895469c2a0fb07d06ec5f506e3ad0f392b3b4a7bd4bc8baec49eaa5",
        ),
    ]
    sources = [
        Source(
            name="tomi",
            origin=f"{_TOMI_REPO[0]} @ {_TOMI_REPO[1]} (tomi_balanced_story_types.zip)",
            license=_TOMI_LICENSE,
            import_path="tomi/tomi_balanced_story_types",
            archive=Archive("tomi/tomi_balanced_story_types.zip", _TOMI_ZIP, tomi_members),
        ),
        Source(
            name="tomi_2cand",
            origin="YassineJamaa/ToM-LargeModel @ 8508ce4ee7169bd04974237b74fe4064d2061101",
            license="no license file in YassineJamaa/ToM-LargeModel (after Sap et al. 2022)",
            import_path="tomi/ToMi-finalNeuralTOM.csv",
            files=_files(
                "YassineJamaa/ToM-LargeModel",
                "8508ce4ee7169bd04974237b74fe4064d2061101",
                [
                    (
                        "dataset/benchmarks/ToMi/ToMi-finalNeuralTOM.csv",
                        "tomi/ToMi-finalNeuralTOM.csv",
                        943581,
                        "7cfbd1b4ed86034a1ce7b7da40b83adb57dfaba4d3ec08606158cf6527dc5d3a",
                    )
                ],
            ),
        ),
        Source(
            name="hitom",
            origin="ying-hui-he/Hi-ToM_dataset @ 56dda76fbbbcd510d51e91837fe19b7df2108562",
            license="Apache-2.0 (LICENSE)",
            import_path="hitom/Hi-ToM_data.json",
            files=_files(
                "ying-hui-he/Hi-ToM_dataset",
                "56dda76fbbbcd510d51e91837fe19b7df2108562",
                [
                    (
                        "Hi-ToM_data.json",
                        "hitom/Hi-ToM_data.json",
                        2267625,
                        "1c4077bbcdf815b91dbb791b60dbce3920a98bd63317954ebf94a532d43cd573",
                    )
                ],
            ),
        ),
        Source(
            name="bigtom",
            origin=f"{_PROCEDURAL[0]} @ {_PROCEDURAL[1]}; conditions: Walter0807/RepBelief @ "
            "0fc86396f2f0a998643ea01786eb3db4dd20ff9c",
            license="MIT (LICENSE of both repositories)",
            import_path="bigtom",
            files=_files(
                *_PROCEDURAL,
                [
                    (
                        "data/bigtom/bigtom.csv",
                        "bigtom/bigtom.csv",
                        273557,
                        "a14884fbff5b61d3fa194ab166764b553ab795fcb1359e69d1282eadf3011a46",
                    )
                ],
            )
            + _files(
                "Walter0807/RepBelief",
                "0fc86396f2f0a998643ea01786eb3db4dd20ff9c",
                [
                    (
                        f"data/conditions/{c}/stories.csv",
                        f"bigtom/conditions/{c}/stories.csv",
                        size,
                        sha,
                    )
                    for c, size, sha in _BIGTOM_CONDITIONS
                ],
            ),
        ),
        Source(
            name="socialiqa",
            origin=f"{_PROCEDURAL[0]} @ {_PROCEDURAL[1]} (vendored AllenAI dev split)",
            license="not stated for the data (AllenAI research data)",
            import_path="socialiqa/dev.jsonl",
            files=_files(
                *_PROCEDURAL,
                [
                    (
                        "data/social_iqa/dev.jsonl",
                        "socialiqa/dev.jsonl",
                        474440,
                        "d8128dfe60783a9971b954ca82dd57b87b05d5d40468876d51a8e1ad2c557465",
                    ),
                    (
                        "data/social_iqa/dev-labels.lst",
                        "socialiqa/dev-labels.lst",
                        3908,
                        "2d882ff71969d3980d37dd07aecdf9093c6e63e27c670f3a203bcf3b9b74bc05",
                    ),
                ],
            ),
        ),
        Source(
            name="tombench",
            origin="zhchen18/ToMBench @ 4f491f0784ed31ef93a8837615fbc48f885cf78d",
            license="MIT (LICENSE)",
            import_path="tombench/data",
            files=_files(
                "zhchen18/ToMBench",
                "4f491f0784ed31ef93a8837615fbc48f885cf78d",
                [
                    (f"data/{n}.jsonl", f"tombench/data/{n}.jsonl", size, sha)
                    for n, size, sha in _TOMBENCH
                ],
            ),
            evaluation_only="The ToMBench README asks that ToMBench be used for evaluation only, "
            "never for training (contamination).",
        ),
        Source(
            name="emobench_eu",
            origin=f"{_EMOBENCH[0]} @ {_EMOBENCH[1]}",
            license="MIT (LICENSE)",
            import_path="emobench",
            files=_EMOBENCH_FILES[:1],
        ),
        Source(
            name="emobench_ea",
            origin=f"{_EMOBENCH[0]} @ {_EMOBENCH[1]}",
            license="MIT (LICENSE)",
            import_path="emobench",
            files=_EMOBENCH_FILES[1:],
        ),
        Source(
            name="adv_csfb",
            origin=f"{adv[0]} @ {adv[1]}",
            license="no license file in the repository",
            import_path="kosinski_tom/adv_csfb",
            files=_files(
                *adv,
                [
                    (f"Adv-CSFB/data/{n}", f"kosinski_tom/adv_csfb/{n}", size, sha)
                    for n, size, sha in adv_rows
                ],
            ),
        ),
        Source(
            name="tgtom",
            origin=f"{tgtom[0]} @ {tgtom[1]}",
            license="not stated (no LICENSE file, nothing in the README)",
            import_path="tgtom",
            files=_files(
                *tgtom, [(f"data/{n}", f"tgtom/{n}", size, sha) for n, size, sha in tgtom_rows]
            ),
        ),
        Source(
            name="fantom",
            origin="skywalker023/fantom task/dataset_loader.py (archive on storage.googleapis.com)",
            license="MIT (skywalker023/fantom LICENSE)",
            import_path="fantom/fantom.tar.gz",
            files=(
                PinnedFile(
                    "fantom/fantom.tar.gz",
                    "https://storage.googleapis.com/ai2-mosaic-public/projects/fantom/fantom.tar.gz",
                    "1d08dfa0ea474c7f83b9bc7e3a7b466eab25194043489dd618b4c5223e1253a4",
                    None,
                ),
            ),
            evaluation_only='The FANToM README: "The samples in FANToM should only be used for '
            'evaluation purposes."',
        ),
    ]
    return {source.name: source for source in sources}


SOURCES = _sources()
"""Pinned sources by dataset name."""

UNPINNED = {
    "kosinski": "ToM_tasks.json is converted from joel-wu/how-large-language-models-encode-"
    "theory-of-mind ToM_tasks.py (see docs/importers.md); there is no file to download as is.",
    "opentom": "the OpenToM files could not be checked here, so none is pinned: get "
    "data/opentom_data/ from github.com/seacowx/OpenToM (or opentom_data/ from the Hugging Face "
    "dataset SeacowX/OpenToM) and run `tomflywheel datasets import opentom DIR`. Its authors ask "
    "that it be used for evaluation only, never for training or fine-tuning.",
}
"""Datasets with an importer but no pinned source, and why."""


def default_fetch_dir() -> Path:
    """``<cache>/benchmarks`` (``$TOMFLYWHEEL_CACHE_DIR`` moves the cache)."""
    return cache_root() / "benchmarks"


def is_fetched(name: str, folder: Path) -> bool | None:
    """Whether every pinned file of ``name`` is in ``folder`` with its size (not hashed here).

    Returns:
        ``None`` when ``name`` has no pinned source.
    """
    source = SOURCES.get(name)
    if source is None:
        return None
    for pinned in source.pinned():
        path = folder / pinned.path
        if not path.is_file() or (pinned.size is not None and path.stat().st_size != pinned.size):
            return False
    return True


_SEARCH_DEPTH = 4
"""How deep under an import's folder the release files are looked for (ToMi's release folder may
sit two levels below the folder given, BigToM's condition files three)."""


def _release_files(source: Path, names: set[str]) -> list[Path]:
    """The files under ``source`` (or ``source`` itself) named as a pinned file is, sorted."""
    if source.is_file():
        return [source] if source.name in names else []
    found = []
    for path in sorted(source.rglob("*")):
        depth = len(path.relative_to(source).parts)
        if depth <= _SEARCH_DEPTH and path.name in names and path.is_file():
            found.append(path)
    return found


def provenance(name: str, source: Path) -> str:
    """Where an import's files came from, for ``meta.provenance`` and the dataset card.

    The files under ``source`` named as one of the benchmark's pinned files are hashed: when each
    has a pinned sha256, the data is the pinned release (fetched or copied by hand), and the
    line names its origin; otherwise the files are the user's own copy, and the line says so.
    """
    pinned = SOURCES.get(name)
    if pinned is None:
        return "local files (no pinned release to compare with)"
    files = pinned.pinned()
    found = _release_files(Path(source), {Path(f.path).name for f in files})
    hashes = {f.sha256 for f in files}
    if found and all(sha256_file(path) in hashes for path in found):
        return f"the pinned release, {pinned.origin} (sha256 of every file checked)"
    return f"local files that are not the pinned release ({pinned.origin})"
