#!/usr/bin/env python3
"""`gallocsim predict`'s helper: llama.cpp creates contexts on a weightless copy of a GGUF, one per request.

Run by `gallocsim predict` under the capture library (it is not meant to be run by hand, though it can be):

    predict_reserve.py MODEL.gguf WORK_DIR [--verbose]

1. Reads MODEL.gguf's header, metadata and tensor infos only (never its data) and writes
   WORK_DIR/weightless.gguf: the same bytes up to where the data starts, then a hole as long as
   the data (a sparse file: a few MB on disk). llama.cpp maps it and reads nothing of the hole.
2. Prints one JSON line: the model (architecture, name, file size, where the data starts).
3. Reads requests, one JSON object a line, on standard input ({"ctx", "ubatch", "batch",
   "flash_attn": "on|off|auto", "kv_type", "n_gpu_layers", "parallel", "embedding"}); for each, creates a llama.cpp
   context on the weightless copy (the model is loaded once per n_gpu_layers), which reserves its
   compute graphs (no decode), frees it, and answers one JSON line: what llama.cpp's own log said
   (compute, KV, output and model buffer sizes, in its rounded MiB), the context's size, the seconds
   it took, or llama.cpp's error. Each context is one graph allocator, so one session of the capture.

Why use_extra_bufts is off: on a CPU with AVX2 llama.cpp repacks Q4_0 (and other) weights into an
"extra" buffer type, an anonymous copy of the weights (4-5 GB for an 8B model, 26 GB for Mixtral),
which reads the whole hole and takes seconds. Weights live in no compute buffer, and the scheduler
assigns every node to the one CPU backend either way, so the compute buffer does not depend on it
(tests/predict checks the 8B shape's 308.01 MiB, made with repacking on, in docs/real-models.md).
use_mmap: the weights stay a mapping of the hole; mlock and prefetch are off for the same reason.
"""
import ctypes
import json
import os
import re
import struct
import sys
import time

GGUF_MAGIC = b"GGUF"
# GGUF's value types: fixed sizes for scalars; 8 is a string, 9 an array (docs: gguf.md).
SCALAR_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
STRING, ARRAY = 8, 9


class NotGguf(Exception):
    pass


class HeaderReader:
    """Reads a GGUF's header sequentially from a file, never past the tensor infos."""

    def __init__(self, f, path):
        self.f, self.path = f, path

    def take(self, n):
        data = self.f.read(n)
        if len(data) != n:
            raise NotGguf(f"{self.path}: the file ends inside its GGUF header (at byte {self.f.tell()})")
        return data

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def string(self):
        n = self.u64()
        if n > 1 << 30:
            raise NotGguf(f"{self.path}: a string of {n} bytes in the GGUF header (at byte {self.f.tell() - 8})")
        return self.take(n).decode("utf-8", errors="replace")

    def value(self, vtype, keep):
        if vtype in SCALAR_SIZES:
            raw = self.take(SCALAR_SIZES[vtype])
            if not keep:
                return None
            fmt = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
            return struct.unpack(fmt[vtype], raw)[0]
        if vtype == STRING:
            text = self.string()
            return text if keep else None
        if vtype == ARRAY:
            item_type, count = self.u32(), self.u64()
            if item_type in SCALAR_SIZES:
                self.f.seek(SCALAR_SIZES[item_type] * count, os.SEEK_CUR)  # skipped, not read
            else:
                for _ in range(count):
                    self.value(item_type, False)
            return None
        raise NotGguf(f"{self.path}: unknown GGUF value type {vtype} (at byte {self.f.tell() - 4})")


def read_header(path):
    """(metadata worth showing, tensor count, offset where the data starts, file size)."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        r = HeaderReader(f, path)
        magic = f.read(4)
        if magic != GGUF_MAGIC:
            raise NotGguf(f"{path}: not a GGUF file (it starts with {magic!r}, not b'GGUF')")
        version = r.u32()
        if version not in (2, 3):
            raise NotGguf(f"{path}: GGUF version {version}; llama.cpp reads versions 2 and 3")
        n_tensors, n_kv = r.u64(), r.u64()
        meta = {}
        alignment = 32
        for _ in range(n_kv):
            key = r.string()
            vtype = r.u32()
            keep = key in ("general.architecture", "general.name", "general.alignment") or key.endswith(".context_length")
            value = r.value(vtype, keep)
            if keep:
                meta[key] = value
        alignment = int(meta.get("general.alignment", alignment))
        for _ in range(n_tensors):
            r.string()
            n_dims = r.u32()
            f.seek(8 * n_dims + 4 + 8, os.SEEK_CUR)  # ne[], type, offset
        end = f.tell()
        if end > size:
            raise NotGguf(f"{path}: the file ends inside its GGUF header")
        data_start = end + (-end % alignment)
        f.seek(0)
        header = f.read(end)
    return meta, n_tensors, data_start, size, header


def write_weightless(header_bytes, data_start, size, out_path):
    """The header as it is, then zeros to the data's start, then a hole to the file's size."""
    with open(out_path, "wb") as out:
        out.write(header_bytes)
        out.write(b"\0" * (data_start - len(header_bytes)))
        out.truncate(max(size, data_start))


class Log:
    """llama.cpp's and ggml's log, kept: the sizes it prints and its errors are the answers."""

    def __init__(self, llama_cpp, verbose):
        self.lines, self.verbose, self.partial = [], verbose, ""

        def callback(level, text, _user):
            s = text.decode("utf-8", errors="replace")
            if verbose:
                sys.stderr.write(s)
            self.partial += s
            while "\n" in self.partial:
                line, self.partial = self.partial.split("\n", 1)
                self.lines.append((level, line))

        self.callback = llama_cpp.llama_log_callback(callback)  # kept alive: ctypes holds no reference
        llama_cpp.llama_log_set(self.callback, ctypes.c_void_p())

    def take(self):
        lines, self.lines = self.lines, []
        return lines


def errors_of(lines):
    """llama.cpp's own error lines (level 4), else its last lines: the message a refusal carries."""
    errors = [text.strip() for level, text in lines if level == 4 and text.strip()]
    return errors or [text.strip() for _, text in lines[-3:] if text.strip()]


SIZE_LINE = re.compile(r"^\S+:\s+(\S+)\s+(compute|KV|RS|output|model) buffer size =\s+([0-9.]+) MiB")


def sizes_of(lines):
    """Every "<buffer type> <kind> buffer size = X MiB" line llama.cpp printed, as it printed them."""
    found = []
    for _, text in lines:
        m = SIZE_LINE.match(text.strip())
        if m:
            found.append({"buffer_type": m.group(1), "kind": m.group(2), "mib": m.group(3)})
    return found


def flash_attn_resolved(lines, asked):
    """auto as llama.cpp resolved it: its graphs hold FLASH_ATTN_EXT nodes (its debug log names them) or not."""
    if asked != "auto":
        return asked
    return "on" if any("(FLASH_ATTN_EXT)" in text for _, text in lines) else "off"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    model_path, work = sys.argv[1], sys.argv[2]
    verbose = "--verbose" in sys.argv[3:]
    try:
        meta, n_tensors, data_start, size, header = read_header(model_path)
    except NotGguf as error:
        print(json.dumps({"error": str(error), "kind": "input"}), flush=True)
        return
    except OSError as error:
        print(json.dumps({"error": f"{model_path}: {error.strerror}", "kind": "input"}), flush=True)
        return
    try:
        import llama_cpp  # after the header: a non-GGUF is refused without loading llama.cpp
    except ImportError as error:
        print(json.dumps({"error": f"{sys.executable} cannot import llama_cpp ({error}): give a Python with "
                                   "llama-cpp-python (--python PATH or GALLOCSIM_PYTHON)", "kind": "python"}), flush=True)
        return
    weightless = os.path.join(work, "weightless.gguf")
    write_weightless(header, data_start, size, weightless)
    arch = meta.get("general.architecture", "")
    print(json.dumps({"model": {"architecture": arch, "name": meta.get("general.name", ""), "tensors": n_tensors,
                                "file_bytes": size, "data_offset": data_start, "weightless": weightless,
                                "trained_context": meta.get(f"{arch}.context_length")}}), flush=True)

    log = Log(llama_cpp, verbose)
    llama_cpp.llama_backend_init()
    model, model_layers, model_lines = None, None, []
    for request_line in sys.stdin:
        request = json.loads(request_line)
        started = time.monotonic()
        if model is None or model_layers != request["n_gpu_layers"]:
            if model is not None:
                llama_cpp.llama_model_free(model)
            params = llama_cpp.llama_model_default_params()
            params.n_gpu_layers = request["n_gpu_layers"]
            params.use_mmap, params.use_mlock, params.use_extra_bufts = True, False, False
            log.take()
            model = llama_cpp.llama_model_load_from_file(weightless.encode(), params)
            model_lines = log.take()
            if not model:
                print(json.dumps({"error": "llama.cpp cannot load the model: " + " / ".join(errors_of(model_lines)),
                                  "kind": "model"}), flush=True)
                return
            model_layers = request["n_gpu_layers"]
        cparams = llama_cpp.llama_context_default_params()
        cparams.n_ctx = request["ctx"]
        cparams.n_batch = request["batch"]
        cparams.n_ubatch = request["ubatch"]
        cparams.n_seq_max = request["parallel"]
        cparams.n_threads = cparams.n_threads_batch = 1
        cparams.flash_attn_type = {"on": 1, "off": 0, "auto": -1}[request["flash_attn"]]
        kv = getattr(llama_cpp, "GGML_TYPE_" + request["kv_type"].upper())
        cparams.type_k = cparams.type_v = kv
        cparams.no_perf = True
        if request.get("embedding"):
            # As llama-cpp-python's Llama(embedding=True) and llama.cpp's embedding example make an
            # embedding context: a unified KV cache and, unless sequences were asked for, as many
            # sequences as a batch can hold (up to llama.cpp's limit).
            cparams.embeddings = cparams.kv_unified = True
            if request["parallel"] == 1:
                cparams.n_seq_max = min(request["batch"], llama_cpp.llama_max_parallel_sequences())
        ctx = llama_cpp.llama_init_from_model(model, cparams)
        lines = log.take()
        if not ctx:
            print(json.dumps({"error": "llama.cpp cannot create the context: " + " / ".join(errors_of(lines)),
                              "kind": "llama"}), flush=True)
            continue
        answer = {"n_ctx": llama_cpp.llama_n_ctx(ctx), "n_seq_max": llama_cpp.llama_n_seq_max(ctx),
                  "weights_bytes": llama_cpp.llama_model_size(model),
                  "flash_attn": flash_attn_resolved(lines, request["flash_attn"]),
                  "sizes": sizes_of(model_lines) + sizes_of(lines)}
        llama_cpp.llama_free(ctx)
        answer["seconds"] = round(time.monotonic() - started, 3)
        print(json.dumps(answer), flush=True)
    if model is not None:
        llama_cpp.llama_model_free(model)


if __name__ == "__main__":
    main()
