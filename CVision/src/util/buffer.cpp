// Accessors of cvis_buffer: a read-only view of bytes the core produced.
#include "buffer.h"

#include "../../include/cvis_io.h"

extern "C" {

const uint8_t* cvis_buffer_data(const cvis_buffer* buffer) {
  return buffer == nullptr ? nullptr : buffer->bytes.data();
}

size_t cvis_buffer_size(const cvis_buffer* buffer) {
  return buffer == nullptr ? 0 : buffer->bytes.size();
}

void cvis_buffer_destroy(cvis_buffer* buffer) { delete buffer; }

}  // extern "C"
