// C entry points of the renderer: validation of the mesh and camera, then the rasteriser.
#include <cmath>

#include "../util/status.h"
#include "rasterizer.h"

extern "C" cvis_status cvis_render(const cvis_render_mesh* mesh, const cvis_render_camera* camera,
                                   uint8_t* rgba) {
  return cvis_render_meshes(mesh, 1, camera, rgba);
}

extern "C" cvis_status cvis_render_meshes(const cvis_render_mesh* meshes, int32_t num_meshes,
                                          const cvis_render_camera* camera, uint8_t* rgba) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (meshes == nullptr || camera == nullptr || rgba == nullptr || num_meshes < 1) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_render: meshes, camera and rgba must not be NULL, and a mesh given");
    }
    if (camera->width < 1 || camera->height < 1 || camera->width > 16384 || camera->height > 16384) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  Str("cvis_render: image size ", camera->width, " x ", camera->height, " outside 1..16384"));
    }
    const double values[] = {camera->fx, camera->fy, camera->cx, camera->cy, camera->near_depth};
    for (double value : values) {
      if (!std::isfinite(value)) return Fail(CVIS_INVALID_ARGUMENT, "cvis_render: intrinsics must be finite");
    }
    if (!(camera->fx > 0) || !(camera->fy > 0) || !(camera->near_depth > 0)) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_render: focal lengths and near_depth must be positive");
    }
    for (int k = 0; k < 9; ++k) {
      if (!std::isfinite(camera->rotation[k])) return Fail(CVIS_INVALID_ARGUMENT, "cvis_render: rotation not finite");
    }
    for (int k = 0; k < 3; ++k) {
      if (!std::isfinite(camera->translation[k])) return Fail(CVIS_INVALID_ARGUMENT, "cvis_render: translation not finite");
    }
    for (int32_t m = 0; m < num_meshes; ++m) {
      const cvis_render_mesh* mesh = &meshes[m];
      if (mesh->num_vertices < 0 || mesh->num_faces < 0 ||
          (mesh->num_vertices > 0 && mesh->positions == nullptr) || (mesh->num_faces > 0 && mesh->faces == nullptr)) {
        return Fail(CVIS_INVALID_ARGUMENT, "cvis_render: negative counts or missing positions/faces");
      }
      if (mesh->texture != nullptr &&
          (mesh->texture_width < 1 || mesh->texture_height < 1 || mesh->texture_width > 65536 ||
           mesh->texture_height > 65536)) {
        return Fail(CVIS_INVALID_ARGUMENT, "cvis_render: texture size outside 1..65536");
      }
      for (int64_t i = 0; i < 3 * mesh->num_faces; ++i) {
        if (mesh->faces[i] < 0 || mesh->faces[i] >= mesh->num_vertices) {
          return Fail(CVIS_INVALID_ARGUMENT,
                      Str("cvis_render: face ", i / 3, " refers to vertex ", mesh->faces[i], " of ", mesh->num_vertices));
        }
      }
    }
    Rasterizer rasterizer(*camera);
    for (int32_t m = 0; m < num_meshes; ++m) rasterizer.DrawMesh(meshes[m]);
    rasterizer.CopyRGBA(rgba);
    return CVIS_OK;
  });
}
