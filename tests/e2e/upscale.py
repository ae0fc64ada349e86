#!/usr/bin/env python3
"""Upscales a small generated image x4 with an ESRGAN model through stable-diffusion.cpp.

Runs stable-diffusion-cpp-python's upscaler alone (no diffusion model), on one thread, with a
tile size below the image's so that stable-diffusion.cpp splits it into several tiles: under
`gallocsim capture` that records the ESRGAN graph's reserve and one alloc_graph per tile.

    upscale.py MODEL [--size 48] [--tile 32] [--out PNG]
"""
import argparse

import numpy as np
from PIL import Image

from stable_diffusion_cpp import StableDiffusion


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="ESRGAN model (gguf or safetensors)")
    parser.add_argument("--size", type=int, default=48, help="input image side in pixels")
    parser.add_argument("--tile", type=int, default=32, help="upscaler tile size")
    parser.add_argument("--out", help="write the upscaled image here (PNG)")
    args = parser.parse_args()

    # A smooth gradient with a little noise: deterministic, and not one flat colour.
    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:args.size, 0:args.size]
    pixels = np.stack([x * 255 // max(args.size - 1, 1), y * 255 // max(args.size - 1, 1),
                       (x + y) * 127 // max(args.size - 1, 1)], axis=-1)
    pixels = np.clip(pixels + rng.integers(-8, 9, pixels.shape), 0, 255).astype(np.uint8)
    image = Image.fromarray(pixels, "RGB")

    sd = StableDiffusion(upscaler_path=args.model, upscale_tile_size=args.tile, n_threads=1,
                         verbose=False)
    [result] = sd.upscale(image)
    print(f"upscaled {image.width}x{image.height} to {result.width}x{result.height} "
          f"with tile size {args.tile}")
    if args.out:
        result.save(args.out)


if __name__ == "__main__":
    main()
