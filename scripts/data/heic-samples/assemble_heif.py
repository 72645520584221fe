#!/usr/bin/env python3
"""Composes HEIF files libheif 1.15 cannot write, from single images it did write.

  grid   a 2x2 grid (tiled) image: four 256x256 HEVC tiles, output 500x400 (cropped)
  depth  a colour image with a depth image: the depth picture as a second HEVC item with an
         `auxC` property (urn:mpeg:hevc:2015:auxid:2, plus a depth_representation_info SEI
         with z_near 0.5, z_far 2.5 or the two given, uniform Z) and an `auxl` reference to the
         colour item

Each input's primary item is taken apart (its properties from ipco/ipma, its bytes from iloc)
and the output written from scratch: ftyp, meta (hdlr, pitm, iinf, iref, iprp, iloc), mdat.

It also repairs one thing libheif 1.15 writes wrongly:

  fix-irot  an image encoded with image_orientation 90/270 gets an `ispe` of the rotated size,
            associated after the `irot`; the standard (and Apple) give the coded size, and list
            descriptive properties before transformative ones: swap the size back and move
            irot/imir/clap last in each item's ipma entry, in place (same bytes, reordered)

Usage: assemble_heif.py grid OUT TILE0 TILE1 TILE2 TILE3
       assemble_heif.py depth OUT COLOUR DEPTH [Z_NEAR Z_FAR]   (default 0.5 2.5)
       assemble_heif.py fix-irot FILE
"""

import struct
import sys


def boxes(data, start=0, end=None):
    """(type, payload start, box end) of each box in data[start:end]."""
    end = len(data) if end is None else end
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[start + 8:start + 16])[0]
            header = 16
        elif size == 0:
            size = end - start
        yield kind.decode("latin-1"), start + header, start + size
        start += size


def child(data, start, end, kind):
    for k, s, e in boxes(data, start, end):
        if k == kind:
            return s, e
    raise ValueError(f"no {kind} box")


class Item:
    def __init__(self, kind, data, props, hidden=False):
        self.kind, self.data, self.props, self.hidden = kind, data, props, hidden


def read_primary(path):
    """The primary item of a single-image HEIF: its type, bytes and property boxes."""
    data = open(path, "rb").read()
    ms, me = child(data, 0, len(data), "meta")
    ms += 4  # full box
    ps, _ = child(data, ms, me, "pitm")
    primary = struct.unpack(">H", data[ps + 4:ps + 6])[0]
    # Item type from iinf/infe (version 2).
    s, e = child(data, ms, me, "iinf")
    kind = None
    for k, bs, be in boxes(data, s + 6, e):
        item_id, _, item_type = struct.unpack(">HH4s", data[bs + 4:bs + 12])
        if item_id == primary:
            kind = item_type.decode()
    # Properties in ipco order, then the primary's associations from ipma.
    s, e = child(data, ms, me, "iprp")
    cs, ce = child(data, s, e, "ipco")
    ipco = [data[bs - 8:be] for _, bs, be in boxes(data, cs, ce)]
    ps, pe = child(data, s, e, "ipma")
    version, flags = data[ps], int.from_bytes(data[ps + 1:ps + 4], "big")
    count = struct.unpack(">I", data[ps + 4:ps + 8])[0]
    at, props = ps + 8, []
    for _ in range(count):
        item_id = struct.unpack(">H" if version < 1 else ">I", data[at:at + (2 if version < 1 else 4)])[0]
        at += 2 if version < 1 else 4
        n = data[at]
        at += 1
        for _ in range(n):
            if flags & 1:
                v = struct.unpack(">H", data[at:at + 2])[0]
                at += 2
                essential, index = v >> 15, v & 0x7FFF
            else:
                essential, index = data[at] >> 7, data[at] & 0x7F
                at += 1
            if item_id == primary:
                props.append((ipco[index - 1], bool(essential)))
    # Bytes from iloc (construction method 0: file offsets).
    s, e = child(data, ms, me, "iloc")
    version = data[s]
    sizes = struct.unpack(">H", data[s + 4:s + 6])[0]
    off_size, len_size, base_size = sizes >> 12, (sizes >> 8) & 15, (sizes >> 4) & 15
    index_size = sizes & 15 if version in (1, 2) else 0
    at = s + 6
    if version < 2:
        count = struct.unpack(">H", data[at:at + 2])[0]
        at += 2
    else:
        count = struct.unpack(">I", data[at:at + 4])[0]
        at += 4

    def uint(n):
        nonlocal at
        v = int.from_bytes(data[at:at + n], "big") if n else 0
        at += n
        return v

    payload = None
    for _ in range(count):
        item_id = uint(2 if version < 2 else 4)
        if version in (1, 2):
            method = uint(2) & 15
            assert method == 0, "only file-offset items"
        uint(2)  # data_reference_index
        base = uint(base_size)
        chunks = []
        for _ in range(uint(2)):
            uint(index_size)
            offset, length = uint(off_size), uint(len_size)
            chunks.append(data[base + offset:base + offset + length])
        if item_id == primary:
            payload = b"".join(chunks)
    return Item(kind, payload, props)


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def full_box(kind, version, flags, payload):
    return box(kind, bytes([version]) + flags.to_bytes(3, "big") + payload)


def write_heif(path, items, primary, refs):
    """items: list of Item (ids 1, 2, ...); refs: (type, from_id, [to_ids])."""
    ipco, associations = [], []
    for item in items:
        entries = []
        for prop, essential in item.props:
            if prop not in ipco:
                ipco.append(prop)
            entries.append((ipco.index(prop) + 1, essential))
        associations.append(entries)
    ipma = struct.pack(">I", len(items))
    for item_id, entries in enumerate(associations, 1):
        ipma += struct.pack(">HB", item_id, len(entries))
        ipma += bytes((0x80 if essential else 0) | index for index, essential in entries)
    iprp = box("iprp", box("ipco", b"".join(ipco)) + full_box("ipma", 0, 0, ipma))
    infe = b"".join(
        full_box("infe", 2, 1 if item.hidden else 0, struct.pack(">HH4s", item_id, 0, item.kind.encode()) + b"\0")
        for item_id, item in enumerate(items, 1))
    iinf = full_box("iinf", 0, 0, struct.pack(">H", len(items)) + infe)
    iref = full_box("iref", 0, 0, b"".join(
        box(kind, struct.pack(">HH", source, len(targets)) + b"".join(struct.pack(">H", t) for t in targets))
        for kind, source, targets in refs)) if refs else b""
    hdlr = full_box("hdlr", 0, 0, struct.pack(">I4s12x", 0, b"pict") + b"\0")
    pitm = full_box("pitm", 0, 0, struct.pack(">H", primary))
    ftyp = box("ftyp", b"heic" + struct.pack(">I", 0) + b"mif1heic")

    def iloc(first_offset):
        body = struct.pack(">BBH", 0x44, 0x00, len(items))  # 4-byte offsets and lengths, no base
        offset = first_offset
        for item_id, item in enumerate(items, 1):
            body += struct.pack(">HHHII", item_id, 0, 1, offset, len(item.data))
            offset += len(item.data)
        return full_box("iloc", 0, 0, body)

    def meta(first_offset):
        return full_box("meta", 0, 0, hdlr + pitm + iinf + iref + iprp + iloc(first_offset))

    head = len(ftyp) + len(meta(0)) + 8  # mdat header
    mdat = box("mdat", b"".join(item.data for item in items))
    with open(path, "wb") as out:
        out.write(ftyp + meta(head) + mdat)


def sei_float(value):
    """depth_representation_info element: sign, 7-bit exponent, 5-bit mantissa_len - 1, mantissa
    (H.265 I.14.3.6): value = 2^(e - 31) (1 + m / 2^len). Exact for the values used here."""
    import math
    sign = 1 if value < 0 else 0
    mantissa_value, exponent = math.frexp(abs(value))  # abs = m * 2^exponent, 0.5 <= m < 1
    e = exponent - 1 + 31
    fraction = mantissa_value * 2 - 1
    for length in range(1, 33):
        m = fraction * (1 << length)
        if m == int(m):
            break
    return [(sign, 1), (e, 7), (length - 1, 5), (int(m), length)]


def depth_sei(z_near, z_far, representation):
    """An auxC subtype holding one prefix SEI NAL with depth_representation_info (payload 177),
    laid out as libheif reads it: total length, NAL length, NAL."""
    fields = [(1, 1), (1, 1), (0, 1), (0, 1)]  # z_near, z_far present; no d_min, d_max
    # ue(v) depth_representation_type
    code = representation + 1
    n = code.bit_length()
    fields += [(0, n - 1), (code, n)]
    fields += sei_float(z_near) + sei_float(z_far)
    bits = "".join(format(v, f"0{n}b") for v, n in fields)
    bits += "1"  # rbsp trailing bits
    bits += "0" * (-len(bits) % 8)
    payload = int(bits, 2).to_bytes(len(bits) // 8, "big")
    nal = bytes([39 << 1, 1, 177, len(payload)]) + payload
    return struct.pack(">I", len(nal) + 4) + struct.pack(">I", len(nal)) + nal


def main():
    mode, out = sys.argv[1], sys.argv[2]
    if mode == "grid":
        tiles = [read_primary(p) for p in sys.argv[3:7]]
        for tile in tiles:
            tile.hidden = True
        width, height = 500, 400
        # ImageGrid: version 0, flags 0 (16-bit sizes), rows - 1, columns - 1, output size.
        descriptor = struct.pack(">BBBBHH", 0, 0, 1, 1, width, height)
        ispe = full_box("ispe", 0, 0, struct.pack(">II", width, height))
        colour = [p for p in tiles[0].props if p[0][4:8] in (b"colr", b"pixi")]
        grid = Item("grid", descriptor, [(ispe, False)] + colour)
        write_heif(out, [grid] + tiles, 1, [("dimg", 1, [2, 3, 4, 5])])
    elif mode == "depth":
        colour, depth = read_primary(sys.argv[3]), read_primary(sys.argv[4])
        depth.hidden = True
        z_near, z_far = (float(sys.argv[5]), float(sys.argv[6])) if len(sys.argv) > 6 else (0.5, 2.5)
        auxc = full_box("auxC", 0, 0, b"urn:mpeg:hevc:2015:auxid:2\0" + depth_sei(z_near, z_far, 2))
        depth.props.append((auxc, True))
        write_heif(out, [colour, depth], 1, [("auxl", 2, [1])])
    elif mode == "fix-irot":
        data = bytearray(open(out, "rb").read())
        ms, me = child(data, 0, len(data), "meta")
        s, e = child(data, ms + 4, me, "iprp")
        cs, ce = child(data, s, e, "ipco")
        kinds = [k for k, _, _ in boxes(data, cs, ce)]
        found = {k: (bs, be) for k, bs, be in boxes(data, cs, ce)}
        assert "irot" in found and data[found["irot"][0]] & 1, "no 90/270 degree irot"
        bs = found["ispe"][0] + 4
        width, height = struct.unpack(">II", data[bs:bs + 8])
        data[bs:bs + 8] = struct.pack(">II", height, width)
        ps, pe = child(data, s, e, "ipma")
        assert data[ps] == 0 and not data[ps + 3] & 1, "ipma version 0, 7-bit indices"
        at = ps + 8
        for _ in range(struct.unpack(">I", data[ps + 4:ps + 8])[0]):
            n = data[at + 2]
            entries = list(data[at + 3:at + 3 + n])
            entries.sort(key=lambda v: kinds[(v & 0x7F) - 1] in ("irot", "imir", "clap"))
            data[at + 3:at + 3 + n] = bytes(entries)
            at += 3 + n
        open(out, "wb").write(data)
    else:
        sys.exit(__doc__)
    print("wrote", out)


if __name__ == "__main__":
    main()
