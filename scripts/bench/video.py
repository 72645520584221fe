#!/usr/bin/env python3
"""Video input against the photos it was made from: keyframes, blur, registration and pose AUC.

Two videos are made from shared captures' photos (scripts/video/encode_video.cpp, H.264 when the
encoder is there, else MPEG-4 part 2), each photo held for --repeat frames (a camera stopping at
every view, so the frames are the photos' own pixels and their ground truth applies):
1. synthetic-orbit: its 48 frames in name order.
2. templeRing: its 47 photos, with frames blurred on purpose (Gaussian, sigma 4 px): the middle
   frame of six views and two of the three frames of two more, so every view keeps a sharp frame.
3. templeRing-unblurred: the same without blur, the control: what H.264 alone costs.
Each video and the photo folder run `photogrammetry reconstruct ... --sparse-only`; the video's
keyframes are renamed to the photo they hold (frame // repeat) and both models go through
`photogrammetry compare` against gt_sparse (pair AUC@5, every ground-truth view counted).

usage: scripts/bench/video.py [--binary PATH] [--work DIR] [--repeat N] [--fps F] [--threads N] [--reuse-photos] [--only NAME]
"""
import argparse, json, os, shutil, subprocess, sys, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SHARED = "/work/shared/datasets"


def build_encoder(work):
    exe = os.path.join(work, "encode_video")
    subprocess.run(["g++", "-O1", "-std=c++17", "-o", exe, os.path.join(ROOT, "scripts/video/encode_video.cpp"),
                    "-I/usr/include/opencv4", "-lopencv_core", "-lopencv_imgproc", "-lopencv_imgcodecs",
                    "-lopencv_videoio"], check=True)
    return exe


def encode(exe, out, images, fps, repeat, blurred):
    for codec in ("avc1", "mp4v"):
        result = subprocess.run([exe, out, codec, str(fps), "--repeat", str(repeat),
                                 "--blur", ",".join(map(str, sorted(blurred))) or "-1", *images],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if result.returncode == 0:
            return codec
        if result.returncode != 3:
            sys.exit("encode_video failed for %s" % out)
    sys.exit("no H.264 or MPEG-4 encoder")


def reconstruct(binary, capture, out, threads, reuse=False):
    report = os.path.join(out, "report.json")
    if reuse and os.path.exists(report) and json.load(open(report)).get("complete"):
        return None, json.load(open(report))
    shutil.rmtree(out, ignore_errors=True)
    start = time.time()
    subprocess.run([binary, "reconstruct", capture, out, "--sparse-only", "--progress", "none", "--threads", str(threads)],
                   check=True, stdout=subprocess.DEVNULL)
    return time.time() - start, json.load(open(os.path.join(out, "report.json")))


def renamed_model(out, names, repeat):
    """A copy of OUT/sparse whose images are named after the photo each keyframe holds."""
    source, target = os.path.join(out, "sparse"), os.path.join(out, "sparse-photo-names")
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)
    lines, data_line = [], 0
    for line in open(os.path.join(source, "images.txt")):
        if not line.startswith("#") and line.strip():
            data_line += 1
            if data_line % 2 == 1:
                fields = line.rstrip("\n").split(" ")
                frame = int(fields[9][len("frame-"):len("frame-") + 6])
                fields[9] = names[frame // repeat]
                line = " ".join(fields) + "\n"
        elif not line.startswith("#"):
            data_line += 1
        lines.append(line)
    open(os.path.join(target, "images.txt"), "w").writelines(lines)
    return target


def auc5(binary, model, gt):
    result = subprocess.run([binary, "compare", model, gt], check=True, capture_output=True, text=True)
    return json.loads(result.stdout)["auc"]["5"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/photogrammetry"))
    parser.add_argument("--work", default="/tmp/benchmark-video")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fps", type=float, default=30)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--reuse-photos", action="store_true", help="keep the photo runs of an earlier call")
    parser.add_argument("--only", help="run this capture alone (synthetic-orbit or templeRing)")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    exe = build_encoder(args.work)
    r = args.repeat
    # (row, capture, frames blurred); "templeRing-unblurred" is the control: what the codec alone costs.
    cases = [("synthetic-orbit", "synthetic-orbit", set()),
             ("templeRing", "templeRing",
              {r * v + r // 2 for v in (4, 11, 19, 27, 35, 42)} | {r * v + k for v in (15, 31) for k in range(r - 1)}),
             ("templeRing-unblurred", "templeRing", set())]
    rows = []
    for name, dataset, blurred in cases:
        if args.only and name != args.only:
            continue
        folder = os.path.join(SHARED, dataset, "images")
        gt = os.path.join(SHARED, dataset, "gt_sparse")
        names = sorted(n for n in os.listdir(folder) if n.lower().endswith((".jpg", ".png")))
        video = os.path.join(args.work, name + ".mp4")
        codec = encode(exe, video, [os.path.join(folder, n) for n in names], args.fps, r, blurred)
        video_s, video_report = reconstruct(args.binary, video, os.path.join(args.work, name + "-video"), args.threads)
        photo_s, photo_report = reconstruct(args.binary, folder, os.path.join(args.work, dataset + "-photos"), args.threads,
                                           args.reuse_photos)
        section = video_report["video"]
        chosen = [k["frame"] for k in section["keyframes"]]
        views = {f // r for f in chosen}
        rows.append(dict(
            capture=name, codec=codec, frames=section["sources"][0]["frames_decoded"], blurred=len(blurred),
            flagged=len(set(section["sources"][0]["blurred_frames"]) & blurred),
            keyframes=len(chosen), views=len(views), photos=len(names), blurred_chosen=len(set(chosen) & blurred),
            registered_video=video_report["images_registered"], registered_photos=photo_report["images_registered"],
            auc5_video=auc5(args.binary, renamed_model(os.path.join(args.work, name + "-video"), names, r), gt),
            auc5_photos=auc5(args.binary, os.path.join(args.work, dataset + "-photos", "sparse"), gt),
            ingest_s=next(s["seconds"] for s in video_report["stages"] if s["name"] == "ingest"),
            video_s=video_s, photo_s=photo_s))
        print(json.dumps(rows[-1]), file=sys.stderr)
        json.dump(rows[-1], open(os.path.join(args.work, name + ".json"), "w"), indent=1)
    print("%-20s %5s %6s %7s %9s %9s %14s %9s %9s %7s %7s %8s" % (
        "capture", "codec", "frames", "blurred", "keyframes", "views", "blurred chosen", "reg video", "reg photo",
        "AUC@5 v", "AUC@5 p", "ingest s"))
    for row in rows:
        print("%-20s %5s %6d %7d %9d %9s %14d %9d %9d %7.1f %7.1f %8.1f" % (
            row["capture"], row["codec"], row["frames"], row["blurred"], row["keyframes"],
            "%d/%d" % (row["views"], row["photos"]), row["blurred_chosen"], row["registered_video"],
            row["registered_photos"], row["auc5_video"], row["auc5_photos"], row["ingest_s"]))
    json.dump(rows, open(os.path.join(args.work, "benchmark-video.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
