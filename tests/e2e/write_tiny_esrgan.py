#!/usr/bin/env python3
"""Writes a tiny random-weight x4 ESRGAN (RRDBNet) GGUF that stable-diffusion.cpp's upscaler loads.

stable-diffusion.cpp (esrgan.hpp) reads the number of RRDB blocks and the scale from the tensor
names (the "original" Real-ESRGAN naming: conv_first, body.N.rdbM.convK, conv_body, conv_up1,
conv_up2, conv_hr, conv_last) but fixes num_feat = 64 and num_grow_ch = 32, so the smallest model
it builds has one RRDB block (three dense blocks of five convolutions) at 64 features. Convolution
weights are F16 ([out, in, 3, 3], what its Conv2d allocates), biases F32. The weights are random
(fixed seed), so the upscaled image is noise, but the graphs are the real architecture's.

    write_tiny_esrgan.py OUT.gguf [--blocks 1] [--seed 0]
"""
import argparse

import gguf
import numpy as np

NUM_FEAT, NUM_GROW_CH, IN_CH, OUT_CH = 64, 32, 3, 3  # fixed by stable-diffusion.cpp's loader


def conv(writer: gguf.GGUFWriter, rng: np.random.Generator, name: str, cin: int, cout: int) -> int:
    """Adds NAME.weight [cout, cin, 3, 3] (F16) and NAME.bias [cout] (F32); returns the parameter count."""
    scale = 1.0 / np.sqrt(cin * 9)
    w = (rng.standard_normal((cout, cin, 3, 3)) * scale).astype(np.float16)
    b = (rng.standard_normal(cout) * 0.01).astype(np.float32)
    writer.add_tensor(f"{name}.weight", w)
    writer.add_tensor(f"{name}.bias", b)
    return w.size + b.size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="GGUF file to write")
    parser.add_argument("--blocks", type=int, default=1, help="RRDB blocks (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    writer = gguf.GGUFWriter(args.out, "esrgan")
    params = conv(writer, rng, "conv_first", IN_CH, NUM_FEAT)
    for i in range(args.blocks):
        for j in range(1, 4):
            for k in range(1, 6):
                cin = NUM_FEAT + (k - 1) * NUM_GROW_CH
                cout = NUM_FEAT if k == 5 else NUM_GROW_CH
                params += conv(writer, rng, f"body.{i}.rdb{j}.conv{k}", cin, cout)
    for name in ("conv_body", "conv_up1", "conv_up2", "conv_hr"):  # conv_up2 present: scale 4
        params += conv(writer, rng, name, NUM_FEAT, NUM_FEAT)
    params += conv(writer, rng, "conv_last", NUM_FEAT, OUT_CH)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    print(f"wrote {args.out}: x4 ESRGAN, {args.blocks} RRDB block(s), {NUM_FEAT} features, "
          f"{params} parameters")


if __name__ == "__main__":
    main()
