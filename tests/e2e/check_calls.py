#!/usr/bin/env python3
"""Checks that a capture holds exactly the calls a program made, in order, and nothing else.

    check_calls.py CAPTURE_DIR SESSION=CREATED_BY:FUNCTION,FUNCTION,... [SESSION=...]

SESSION is a session file's number; CREATED_BY the function that made its allocator
(ggml_gallocr_new or ggml_gallocr_new_n); the FUNCTIONs the calls, in order, without the
ggml_gallocr_ prefix (reserve, reserve_n, reserve_n_size, alloc_graph). An alloc_graph may end
in "+replanned" or "+kept": whether it planned again inside the call. Fails (exit 1) naming
the first difference, when the capture's log reports calls the capture did not see, or when
the folder holds other sessions than those listed.
"""
import json
import pathlib
import sys


def expected_sessions(specs):
    sessions = {}
    for spec in specs:
        number, rest = spec.split("=", 1)
        created_by, calls = rest.split(":", 1)
        sessions[int(number)] = (created_by, [c for c in calls.split(",") if c])
    return sessions


def main():
    folder = pathlib.Path(sys.argv[1])
    expected = expected_sessions(sys.argv[2:])
    found = sorted(int(p.stem.split("-")[1]) for p in folder.glob("session-*.jsonl"))
    if found != sorted(expected):
        sys.exit(f"{folder}: sessions {found}, expected {sorted(expected)}")
    log = folder / "capture-log.jsonl"
    if log.exists():
        gaps = [json.loads(line) for line in log.read_text().splitlines() if '"exit"' not in line]
        if gaps:
            sys.exit(f"{log}: the capture reports what it could not see: {gaps}")
    for number, (created_by, calls) in expected.items():
        lines = [json.loads(line) for line in (folder / f"session-{number}.jsonl").read_text().splitlines()]
        header, recorded = lines[0], lines[1:]
        if header["created_by"] != created_by:
            sys.exit(f"session {number}: created by {header['created_by']}, expected {created_by}")
        got = []
        for call in recorded:
            name = call["function"].removeprefix("ggml_gallocr_")
            if name == "alloc_graph" and any(c.startswith("alloc_graph+") for c in calls):
                name += "+replanned" if call["replanned"] else "+kept"
            got.append(name)
        if got != calls:
            sys.exit(f"session {number}: calls {got}, expected {calls}")
        print(f"session {number}: {created_by}, {len(got)} calls as the program made them: {', '.join(got)}")


if __name__ == "__main__":
    main()
