// A sparse uniform grid over 3D space: items (points or triangles) listed per cell, found by
// hashing the cell's integer coordinates. The cloud comparison's exact radius queries use a
// cell size equal to the radius, so every item within the radius lies in one of 27 cells.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace cvis {

class CellGrid {
 public:
  explicit CellGrid(double cell_size) : cell_size_(cell_size), inverse_(1.0 / cell_size) {}

  double cell_size() const { return cell_size_; }

  // Integer cell coordinates of a point (clamped far beyond any real scene).
  std::array<int64_t, 3> CellOf(double x, double y, double z) const {
    return {Coordinate(x), Coordinate(y), Coordinate(z)};
  }

  // The 64-bit key of a cell: 21 bits per axis. Cells 2^21 apart share a key; that only adds
  // candidates to a query, whose distances are exact.
  static uint64_t Key(int64_t x, int64_t y, int64_t z) {
    constexpr uint64_t kMask = (uint64_t(1) << 21) - 1;
    return (uint64_t(x) & kMask) | ((uint64_t(y) & kMask) << 21) | ((uint64_t(z) & kMask) << 42);
  }

  // Lists item items[k] under cell keys[k] (an item may appear under several keys). Items
  // keep their given order within a cell.
  void Build(const std::vector<uint64_t>& keys, const std::vector<uint32_t>& items);

  // The items of a cell (an empty range when it has none).
  const uint32_t* Find(uint64_t key, const uint32_t** end) const;

  size_t num_cells() const { return size_; }

 private:
  struct Slot {
    uint64_t key = kEmpty;
    uint32_t begin = 0;
    uint32_t count = 0;
  };
  static constexpr uint64_t kEmpty = ~uint64_t(0);  // keys use 63 bits, so never this

  friend class CellSet;
  static uint64_t Mix(uint64_t key) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return key;
  }
  int64_t Coordinate(double value) const {
    const double cell = std::floor(value * inverse_);
    return int64_t(cell < -1e15 ? -1e15 : (cell > 1e15 ? 1e15 : (cell == cell ? cell : 0.0)));
  }
  Slot* FindOrInsert(uint64_t key);
  void Grow();

  double cell_size_;
  double inverse_;
  std::vector<Slot> slots_;
  size_t size_ = 0;
  std::vector<uint32_t> items_;
};

// A set of cell keys (open addressing), for "is this cell near any of our points".
class CellSet {
 public:
  void Insert(uint64_t key);
  bool Contains(uint64_t key) const;
  size_t size() const { return size_; }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);
  void Grow();
  std::vector<uint64_t> slots_;
  size_t size_ = 0;
};

}  // namespace cvis
