#include "cell_grid.h"

namespace cvis {

CellGrid::Slot* CellGrid::FindOrInsert(uint64_t key) {
  // Grown at half load, so probe sequences stay short.
  if (2 * (size_ + 1) > slots_.size()) Grow();
  const size_t mask = slots_.size() - 1;
  for (size_t index = Mix(key) & mask;; index = (index + 1) & mask) {
    Slot& slot = slots_[index];
    if (slot.key == key) return &slot;
    if (slot.key == kEmpty) {
      slot.key = key;
      ++size_;
      return &slot;
    }
  }
}

void CellGrid::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : 2 * old.size(), Slot());
  const size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.key == kEmpty) continue;
    size_t index = Mix(slot.key) & mask;
    while (slots_[index].key != kEmpty) index = (index + 1) & mask;
    slots_[index] = slot;
  }
}

void CellGrid::Build(const std::vector<uint64_t>& keys, const std::vector<uint32_t>& items) {
  slots_.clear();
  size_ = 0;
  // Counting sort by cell: count, turn counts into offsets, then place.
  for (uint64_t key : keys) ++FindOrInsert(key)->count;
  uint32_t running = 0;
  for (Slot& slot : slots_) {
    if (slot.key == kEmpty) continue;
    slot.begin = running;
    running += slot.count;
    slot.count = 0;
  }
  items_.resize(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) {
    const size_t mask = slots_.size() - 1;
    size_t index = Mix(keys[k]) & mask;
    while (slots_[index].key != keys[k]) index = (index + 1) & mask;
    Slot* slot = &slots_[index];
    items_[slot->begin + slot->count++] = items[k];
  }
}

const uint32_t* CellGrid::Find(uint64_t key, const uint32_t** end) const {
  *end = nullptr;
  if (slots_.empty()) return nullptr;
  const size_t mask = slots_.size() - 1;
  for (size_t index = Mix(key) & mask;; index = (index + 1) & mask) {
    const Slot& slot = slots_[index];
    if (slot.key == key) {
      *end = items_.data() + slot.begin + slot.count;
      return items_.data() + slot.begin;
    }
    if (slot.key == kEmpty) return nullptr;
  }
}

void CellSet::Insert(uint64_t key) {
  if (2 * (size_ + 1) > slots_.size()) Grow();
  const size_t mask = slots_.size() - 1;
  for (size_t index = CellGrid::Mix(key) & mask;; index = (index + 1) & mask) {
    if (slots_[index] == key) return;
    if (slots_[index] == kEmpty) {
      slots_[index] = key;
      ++size_;
      return;
    }
  }
}

bool CellSet::Contains(uint64_t key) const {
  if (slots_.empty()) return false;
  const size_t mask = slots_.size() - 1;
  for (size_t index = CellGrid::Mix(key) & mask;; index = (index + 1) & mask) {
    if (slots_[index] == key) return true;
    if (slots_[index] == kEmpty) return false;
  }
}

void CellSet::Grow() {
  std::vector<uint64_t> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : 2 * old.size(), kEmpty);
  const size_t mask = slots_.size() - 1;
  for (uint64_t key : old) {
    if (key == kEmpty) continue;
    size_t index = CellGrid::Mix(key) & mask;
    while (slots_[index] != kEmpty) index = (index + 1) & mask;
    slots_[index] = key;
  }
}

}  // namespace cvis
