"""The shared-memory access patterns measured by banks.cu under ncu (issue 15): one warp, one load
instruction of W bytes per lane at byte offset off(lane).  The same list is read by the CPU test, so the
patterns measured and the patterns checked cannot drift apart."""

PATTERNS = [
    # name, bytes per lane, byte offset of each lane 0..31
    ("lin4", 4, [4 * t for t in range(32)]),
    ("bcast4", 4, [0] * 32),
    ("pair4", 4, [4 * (t // 2) for t in range(32)]),
    ("stride8B_4", 4, [8 * t for t in range(32)]),
    ("stride128B_4", 4, [128 * t for t in range(32)]),
    ("two_rows_4", 4, [128 * (t % 2) for t in range(32)]),
    ("lin8", 8, [8 * t for t in range(32)]),
    ("bcast8", 8, [0] * 32),
    ("half_repeat8", 8, [8 * (t % 16) for t in range(32)]),
    ("half_reverse8", 8, [8 * (15 - t % 16) for t in range(32)]),
    ("pair8", 8, [8 * (t // 2) for t in range(32)]),
    ("stride16B_8", 8, [16 * t for t in range(32)]),
    ("stride256B_8", 8, [256 * t for t in range(32)]),
    ("four_rows8", 8, [256 * (t % 4) for t in range(32)]),
    ("cross_half8", 8, [8 * (t % 16) + 128 * (t // 16) for t in range(32)]),
    ("lin16", 16, [16 * t for t in range(32)]),
    ("bcast16", 16, [0] * 32),
    ("oct_repeat16", 16, [16 * (t % 8) for t in range(32)]),
    ("quad16", 16, [16 * (t // 4) for t in range(32)]),
    ("half_repeat16", 16, [16 * (t % 16) for t in range(32)]),
    ("stride32B_16", 16, [32 * t for t in range(32)]),
    ("stride128B_16", 16, [128 * t for t in range(32)]),
    ("two_rows16", 16, [128 * (t % 2) for t in range(32)]),
    ("quad_rows16", 16, [16 * (t % 8) + 1024 * (t // 8) for t in range(32)]),
]

if __name__ == "__main__":
    # one line per pattern for banks.cu: name width off0 ... off31
    for name, w, offs in PATTERNS:
        print(name, w, *offs)
