#!/usr/bin/env python3
"""Transcribes about a second of generated audio with whisper.cpp (through pywhispercpp).

Run under `gallocsim capture` to record every graph whisper.cpp plans: the worst-case reserves
of whisper_init_state (conv, encoder, cross, decoder) and the real graphs of whisper_full
(encoder windows, then one decoder, or with --fallback every temperature of the fallback, each
after the first with best_of = 5 decoders sharing a batch). With a random-weight model
(write_tiny_whisper.py) the text is noise; only that it runs matters.

    transcribe.py MODEL.bin [--seconds 1.0] [--threads 1] [--fallback]
"""
import argparse

import numpy as np
from pywhispercpp.model import Model

SAMPLE_RATE = 16000  # WHISPER_SAMPLE_RATE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a whisper.cpp ggml model file")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--fallback", action="store_true",
                        help="fail every temperature but the last (logprob_thold 0, no_speech_thold 1), "
                             "so whisper_full also runs its batched best-of-5 decoders")
    args = parser.parse_args()

    # a 440 Hz tone plus a little noise, float32 mono at 16 kHz, as whisper_full takes it
    t = np.arange(int(args.seconds * SAMPLE_RATE), dtype=np.float64) / SAMPLE_RATE
    rng = np.random.default_rng(1)
    audio = (0.3 * np.sin(2 * np.pi * 440.0 * t) + 0.05 * rng.standard_normal(t.size)).astype(np.float32)

    params = dict(n_threads=args.threads, print_progress=False, print_realtime=False)
    if args.fallback:
        params.update(logprob_thold=0.0, no_speech_thold=1.0)
    model = Model(args.model, **params)
    segments = model.transcribe(audio)
    print(f"transcribed {audio.size} samples ({audio.size / SAMPLE_RATE:.2f} s) "
          f"into {len(segments)} segments{' (every temperature tried)' if args.fallback else ''}")
    for s in segments:
        print(f"  [{s.t0}..{s.t1}] {s.text!r}")


if __name__ == "__main__":
    main()
