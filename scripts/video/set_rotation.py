#!/usr/bin/env python3
"""Sets the display rotation of an MP4/MOV's video tracks, as phones write it: the track header's
(tkhd) transformation matrix, patched in place (no re-encoding).

usage: set_rotation.py FILE DEGREES     DEGREES: 0, 90, 180 or 270, clockwise (90: a phone held
upright whose sensor records landscape; iPhones write the matrix [0 1 0; -1 0 0; h 0 1]).
"""
import struct, sys

ONE, W = 0x10000, 0x40000000


def matrix(degrees, width, height):
    a, b, c, d, tx, ty = {0: (ONE, 0, 0, ONE, 0, 0), 90: (0, ONE, -ONE, 0, height, 0),
                          180: (-ONE, 0, 0, -ONE, width, height), 270: (0, -ONE, ONE, 0, 0, width)}[degrees]
    return struct.pack(">9i", a, b, 0, c, d, 0, tx * ONE, ty * ONE, W)


def boxes(data, start, end):
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", data[at + 8:at + 16])[0], 16
        elif size == 0:
            size = end - at
        if size < header or at + size > end:
            raise ValueError("corrupt box at %d" % at)
        yield kind, at, at + header, at + size
        at += size


def main():
    path, degrees = sys.argv[1], int(sys.argv[2])
    data = bytearray(open(path, "rb").read())
    patched = 0
    for kind, _, body, end in boxes(data, 0, len(data)):
        if kind != b"moov":
            continue
        for kind, _, trak, trak_end in boxes(data, body, end):
            if kind != b"trak":
                continue
            for kind, _, tkhd, _ in boxes(data, trak, trak_end):
                if kind != b"tkhd":
                    continue
                version = data[tkhd]
                at = tkhd + 4 + (32 if version == 1 else 20) + 8 + 8  # times, ids, reserved, layer...
                width, height = struct.unpack(">II", data[at + 36:at + 44])
                if width == 0:
                    continue  # not a visual track
                data[at:at + 36] = matrix(degrees, width >> 16, height >> 16)
                patched += 1
    if patched == 0:
        sys.exit("%s: no video track header" % path)
    open(path, "wb").write(data)


if __name__ == "__main__":
    main()
