// Encodes a list of images as a video through OpenCV's FFmpeg writer: each image held for
// --repeat frames (a still shot between moves, so the video's frames are the photos' own pixels),
// chosen output frames blurred on purpose. Used by scripts/data/make-video-samples.sh (Datasets/video/)
// and scripts/bench/video.py.
//
// Usage: encode_video OUT.mp4 FOURCC FPS [--repeat N] [--blur I,J,...] [--sigma S] IMAGE...
//   FOURCC: avc1 (H.264), hvc1 (HEVC), mp4v (MPEG-4 part 2); exits 3 when the writer cannot open
//   it (no such encoder). --blur lists output frame indices (from 0) to Gaussian-blur with sigma S
//   (default 4 px). Every image must have the first one's size.
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: encode_video OUT FOURCC FPS [--repeat N] [--blur I,J] [--sigma S] IMAGE...\n");
    return 2;
  }
  const std::string out = argv[1], fourcc = argv[2];
  const double fps = std::atof(argv[3]);
  int repeat = 1;
  double sigma = 4;
  std::set<int> blurred;
  std::vector<std::string> images;
  for (int i = 4; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--repeat" && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else if (arg == "--sigma" && i + 1 < argc) {
      sigma = std::atof(argv[++i]);
    } else if (arg == "--blur" && i + 1 < argc) {
      std::stringstream list(argv[++i]);
      for (std::string item; std::getline(list, item, ',');) blurred.insert(std::atoi(item.c_str()));
    } else {
      images.push_back(arg);
    }
  }
  if (images.empty() || repeat < 1 || fourcc.size() != 4) return 2;
  cv::VideoWriter writer;
  int frame = 0;
  for (const std::string& path : images) {
    const cv::Mat image = cv::imread(path, cv::IMREAD_COLOR);
    if (image.empty()) {
      std::fprintf(stderr, "encode_video: cannot read %s\n", path.c_str());
      return 1;
    }
    if (!writer.isOpened()) {
      writer.open(out, cv::CAP_FFMPEG, cv::VideoWriter::fourcc(fourcc[0], fourcc[1], fourcc[2], fourcc[3]), fps,
                  image.size());
      if (!writer.isOpened()) {
        std::fprintf(stderr, "encode_video: no %s encoder\n", fourcc.c_str());
        return 3;
      }
    }
    for (int r = 0; r < repeat; ++r, ++frame) {
      if (blurred.count(frame) == 0) {
        writer.write(image);
        continue;
      }
      cv::Mat blur;
      cv::GaussianBlur(image, blur, cv::Size(), sigma);
      writer.write(blur);
    }
  }
  writer.release();
  std::printf("%s: %d frames (%s, %.3g fps)\n", out.c_str(), frame, fourcc.c_str(), fps);
  return 0;
}
