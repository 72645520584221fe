/// The Python program ``USDCore`` runs with usd-core (OpenUSD's `pxr` module): `read FILE
/// OUT_DIR MAX_BYTES MAX_TEXTURE_BYTES` writes a stage's meshes to OUT_DIR (`result.json`,
/// `arrays.bin`, `texture_N.ext`); `package LAYER.usda OUT.usdz` packs a text layer as an ARKit
/// USDZ with a binary layer; `probe` only imports `pxr`.
///
/// Kept here, in the binary, rather than as a SwiftPM resource: an installed `photogrammetry`
/// copied alone to a bin folder has no resource bundle beside it, and the program must match
/// the Swift that reads its output, version for version.
///
/// The program extracts and nothing more: what the arrays mean (transforms, units, the up axis,
/// triangulation, the checks) is decided in Swift (`USDStage`), one place for the readers and
/// the text fallback alike.
enum USDCoreScript {
    static let source = #"""
# photogrammetry's usd-core helper: reads a USD stage's meshes for ModelReader and ModelStats,
# or packs a text layer as an ARKit USDZ with a binary (crate) layer. Run by USDCore.swift; the
# protocol is that file's. Exit codes: 0 done, 2 a one-line error on stderr about the file,
# 3 usd-core (pxr) cannot be imported.
import sys, os, json, math


def fail(message, code=2):
    sys.stderr.write(" ".join(str(message).split()) + "\n")
    sys.stderr.flush()
    os._exit(code)


try:
    import resource
    limit = int(os.environ.get("PHOTOGRAMMETRY_USD_MEMORY", "0"))
    if limit > 0:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
except (ImportError, ValueError, OSError):
    pass

try:
    from pxr import Usd, UsdGeom, UsdShade, Sdf, Ar, UsdUtils, Tf
except Exception as error:
    fail("usd-core is not installed (pip install usd-core==26.3): %s" % error, 3)


def number(value):
    # JSON has no NaN or infinity: they go as the strings "nan", "inf", "-inf".
    value = float(value)
    return value if math.isfinite(value) else repr(value)


class Arrays:
    # The binary file the arrays go to, each as 4-byte values at an offset.

    def __init__(self, path, limit):
        self.file = open(path, "wb")
        self.offset = 0
        self.limit = limit

    def add(self, values, fmt, width):
        # [offset, count] of `values` (a Vt array) written as `fmt` ('f' or 'i'), `width` scalars each.
        try:
            view = memoryview(values)
            ok = view.format in (fmt, "<" + fmt) and view.itemsize == 4
        except TypeError:
            ok = False
        if ok:
            data = view.cast("B")
        else:
            import array
            flat = array.array(fmt)
            for value in values:
                if width == 1:
                    flat.append(value)
                else:
                    flat.extend(value[k] for k in range(width))
            data = flat.tobytes()
        count = len(data) // 4
        if self.offset + len(data) > self.limit:
            fail("more than %d bytes of mesh data" % self.limit)
        self.file.write(data)
        self.offset += len(data)
        return [self.offset - len(data), count]


def texture_shader(material):
    # The UsdUVTexture feeding the surface's diffuseColor (through any chain of shaders), else
    # the first under the material; and the diffuseColor value when it is not connected.
    surface = material.ComputeSurfaceSource()[0]
    colour = None
    if surface:
        diffuse = surface.GetInput("diffuseColor")
        if diffuse:
            seen = set()
            pending = [diffuse]
            while pending:
                port = pending.pop(0)
                if not port.HasConnectedSource():
                    if port is diffuse and port.Get() is not None:
                        colour = [number(c) for c in port.Get()][:3]
                    continue
                for source in port.GetConnectedSources()[0]:
                    shader = UsdShade.Shader(source.source.GetPrim())
                    path = shader.GetPath()
                    if not shader or path in seen:
                        continue
                    seen.add(path)
                    if shader.GetIdAttr().Get() == "UsdUVTexture":
                        return shader, colour
                    pending.extend(shader.GetInputs())
    for prim in Usd.PrimRange(material.GetPrim()):
        shader = UsdShade.Shader(prim)
        if shader and shader.GetIdAttr().Get() == "UsdUVTexture":
            return shader, colour
    return None, colour


def read(path, out, limit, texture_limit):
    try:
        stage = Usd.Stage.Open(path, Usd.Stage.LoadAll)
    except Exception as error:
        fail("cannot open as USD: %s" % str(error).strip().splitlines()[-1] if str(error).strip() else "cannot open as USD")
    if stage is None:
        fail("cannot open as USD")
    layer = stage.GetRootLayer()
    unit = layer.customLayerData.get("lengthUnit") if layer.customLayerData else None
    result = {
        "metersPerUnit": number(UsdGeom.GetStageMetersPerUnit(stage)),
        "upAxis": str(UsdGeom.GetStageUpAxis(stage)),
        "lengthUnit": unit if isinstance(unit, str) else None,
        "meshes": [],
        "materials": [],
    }
    arrays = Arrays(os.path.join(out, "arrays.bin"), limit)
    cache = UsdGeom.XformCache()
    materials = {}
    textures = {}
    texture_bytes = 0

    def material_index(material):
        nonlocal texture_bytes
        if not material:
            return -1
        key = material.GetPath()
        if key in materials:
            return materials[key]
        shader, colour = texture_shader(material)
        file_name = None
        if shader:
            asset = shader.GetInput("file").Get() if shader.GetInput("file") else None
            resolved = asset.resolvedPath if asset is not None else ""
            if resolved:
                if resolved not in textures:
                    buffer = Ar.GetResolver().OpenAsset(Ar.ResolvedPath(resolved))
                    if buffer is None:
                        fail("cannot read texture %s" % asset.path)
                    size = buffer.GetSize()
                    texture_bytes += size
                    if texture_bytes > texture_limit:
                        fail("textures larger than %d bytes in all" % texture_limit)
                    ext = os.path.splitext(asset.path.split("[")[-1].rstrip("]"))[1].lower()
                    name = "texture_%d%s" % (len(textures), ext if ext in (".png", ".jpg", ".jpeg") else ".bin")
                    with open(os.path.join(out, name), "wb") as handle:
                        handle.write(bytes(buffer.GetBuffer()))
                    textures[resolved] = {"name": name, "source": os.path.basename(asset.path.split("[")[-1].rstrip("]"))}
                file_name = textures[resolved]
            elif asset is not None and asset.path:
                fail("texture %s of %s cannot be found" % (asset.path, material.GetPath()))
        materials[key] = len(result["materials"])
        result["materials"].append({
            "path": str(key),
            "texture": file_name["name"] if file_name else None,
            "source": file_name["source"] if file_name else None,
            "color": colour,
        })
        return materials[key]

    def primvar(mesh, name, fmt, width):
        variable = UsdGeom.PrimvarsAPI(mesh).GetPrimvar(name)
        if not variable or not variable.HasAuthoredValue():
            return None
        values = variable.ComputeFlattened()
        if values is None:
            return None
        return {"array": arrays.add(values, fmt, width), "interpolation": str(variable.GetInterpolation())}

    predicate = Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)
    for prim in Usd.PrimRange(stage.GetPseudoRoot(), predicate):
        if not prim.IsA(UsdGeom.Mesh):
            continue
        mesh = UsdGeom.Mesh(prim)
        if mesh.ComputeVisibility() == UsdGeom.Tokens.invisible:
            continue
        if mesh.ComputePurpose() in (UsdGeom.Tokens.guide, UsdGeom.Tokens.proxy):
            continue
        points = mesh.GetPointsAttr().Get()
        counts = mesh.GetFaceVertexCountsAttr().Get()
        indices = mesh.GetFaceVertexIndicesAttr().Get()
        if points is None or counts is None or indices is None:
            continue
        matrix = cache.GetLocalToWorldTransform(prim)
        entry = {
            "path": str(prim.GetPath()),
            "matrix": [number(matrix[r][c]) for r in range(4) for c in range(4)],
            "leftHanded": mesh.GetOrientationAttr().Get() == UsdGeom.Tokens.leftHanded,
            "points": arrays.add(points, "f", 3),
            "counts": arrays.add(counts, "i", 1),
            "indices": arrays.add(indices, "i", 1),
        }
        normals = primvar(mesh, "normals", "f", 3)
        if normals is None:
            values = mesh.GetNormalsAttr().Get()
            if values is not None and len(values) > 0:
                normals = {"array": arrays.add(values, "f", 3), "interpolation": str(mesh.GetNormalsInterpolation())}
        entry["normals"] = normals
        st = primvar(mesh, "st", "f", 2)
        if st is None:
            for candidate in UsdGeom.PrimvarsAPI(mesh).GetPrimvarsWithAuthoredValues():
                if candidate.GetTypeName() in (Sdf.ValueTypeNames.TexCoord2fArray, Sdf.ValueTypeNames.Float2Array):
                    st = primvar(mesh, candidate.GetPrimvarName(), "f", 2)
                    break
        entry["uv"] = st
        entry["color"] = primvar(mesh, "displayColor", "f", 3)
        binding = UsdShade.MaterialBindingAPI(prim)
        entry["material"] = material_index(binding.ComputeBoundMaterial()[0])
        subsets = []
        for subset in binding.GetMaterialBindSubsets():
            faces = subset.GetIndicesAttr().Get()
            bound = UsdShade.MaterialBindingAPI(subset.GetPrim()).ComputeBoundMaterial()[0]
            if faces is not None and len(faces) > 0:
                subsets.append({"faces": arrays.add(faces, "i", 1), "material": material_index(bound)})
        entry["subsets"] = subsets
        result["meshes"].append(entry)
    arrays.file.close()
    with open(os.path.join(out, "result.json"), "w") as handle:
        json.dump(result, handle)


def package(layer_path, usdz_path):
    # The text layer as a binary one beside it, packed as an ARKit USDZ with what it refers to.
    layer = Sdf.Layer.FindOrOpen(layer_path)
    if layer is None:
        fail("usd-core cannot open the text layer")
    binary = os.path.splitext(layer_path)[0] + ".usdc"
    if not layer.Export(binary):
        fail("usd-core cannot write the binary layer")
    if not UsdUtils.CreateNewARKitUsdzPackage(Sdf.AssetPath(binary), usdz_path):
        fail("usd-core cannot pack the USDZ")


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "probe":
        return
    if len(sys.argv) == 6 and sys.argv[1] == "read":
        read(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif len(sys.argv) == 4 and sys.argv[1] == "package":
        package(sys.argv[2], sys.argv[3])
    else:
        fail("usage: read FILE OUT_DIR MAX_BYTES MAX_TEXTURE_BYTES | package LAYER.usda OUT.usdz")


try:
    main()
except MemoryError:
    fail("out of memory")
except Tf.ErrorException as error:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    fail(lines[-1] if lines else "usd-core failed")
except Exception as error:
    fail("%s: %s" % (type(error).__name__, error))
"""#
}
