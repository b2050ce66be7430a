"""codec_roundtrip: ``encode`` + ``decode`` of one envelope against bare ``json.dumps`` + ``loads``.

Both arms start from the same envelopes (realistic mix, see workload.py): the candidate turns an
:class:`Envelope` into its wire string and back into a validated :class:`Envelope`; the baseline
turns the same envelope's wire dict into a string and back into a dict, with default json
settings. The difference is what the codec adds: wire-dict building, the size limit, validation.
"""

from __future__ import annotations

import gc
import json

from a2a_progress.envelope import Envelope, decode, encode
from benchlib import Figure, alternating, ratio_figure
from workload import envelope_mix


def run(quick: bool) -> Figure:
    count, chunk = 2_000, 50
    envelopes = envelope_mix(count)
    dicts = [envelope.to_wire() for envelope in envelopes]
    chunks = range(0, count, chunk)

    def candidate(first: int) -> None:
        for envelope in envelopes[first : first + chunk]:
            decode(encode(envelope))

    def baseline(first: int) -> None:
        for wire in dicts[first : first + chunk]:
            json.loads(json.dumps(wire))

    if not all(decode(encode(envelope)) == envelope for envelope in envelopes):
        raise AssertionError("codec round trip changed an envelope")
    reps = 9 if quick else 25
    alternating(candidate, baseline, chunks)  # warm-up
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(reps):
        gc.collect()
        spent_candidate, spent_baseline = alternating(candidate, baseline, chunks)
        samples[0].append(spent_candidate)
        samples[1].append(spent_baseline)
    return ratio_figure(
        "codec_roundtrip",
        samples,
        unit="us/op",
        scale=1e6 / count,
        target=1.5,
        notes=(
            f"{count} envelopes per repetition (median {_median_size(envelopes)} B encoded), "
            f"mixed kinds, in chunks of {chunk} alternating between the arms; {reps} repetitions"
        ),
    )


def _median_size(envelopes: list[Envelope]) -> int:
    sizes = sorted(len(encode(envelope).encode()) for envelope in envelopes)
    return sizes[len(sizes) // 2]
