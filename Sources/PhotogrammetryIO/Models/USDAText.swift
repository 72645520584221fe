import Foundation
import PhotogrammetryCore

/// A ``MeshModel`` as a USDA (text) layer: stage metadata for AR Quick Look (`defaultPrim`,
/// `metersPerUnit`, `upAxis` Y) and the model's unit (`customLayerData` `lengthUnit`), one Mesh
/// prim with points, faces, normals and a vertex `displayColor` primvar, bound to a
/// UsdPreviewSurface material; with several materials (a multi-page atlas) each binds its faces
/// through a GeomSubset of the `materialBind` family.
///
/// Without a texture the material's diffuse colour reads the `displayColor` primvar (a
/// UsdPrimvarReader_float3), so viewers that honour it show the vertex colours; with one, a
/// UsdUVTexture reads `primvars:st` instead, and a model whose every material has one carries no
/// `displayColor` (``MeshModel/writesVertexColors``).
///
/// USD has no "unknown" unit: `metersPerUnit` is 1 either way (AR Quick Look reads it), and a
/// model of ``LengthUnit/unknown`` scale says so in `customLayerData` and the layer's `doc`.
enum USDAText {
    /// The layer's name inside a USDZ package.
    static let layerName = "model.usda"

    /// The layer's text.
    package static func layer(_ model: MeshModel) -> String {
        var text = String()
        text.reserveCapacity(64 * model.positions.count + 24 * model.triangles.count + 4096)
        let materialPaths = model.materials.map { "/Model/Materials/\(identifier($0.name))" }
        let bounds = model.bounds ?? BoundingBox(min: .zero, max: .zero)
        text += """
        #usda 1.0
        (
            customLayerData = {
                string \(LengthUnit.metadataKey) = "\(model.lengthUnit.rawValue)"
            }
            defaultPrim = "Model"
            metersPerUnit = 1
            upAxis = "Y"
            doc = "\(documentation(model))"
        )

        def Xform "Model" (
            kind = "component"
        )
        {
            def Mesh "Surface" (
                prepend apiSchemas = ["MaterialBindingAPI"]
            )
            {
                float3[] extent = [\(tuple(SIMD3<Float>(bounds.min))), \(tuple(SIMD3<Float>(bounds.max)))]
                int[] faceVertexCounts = [
        """
        appendList(&text, count: model.triangles.count) { _, t in t += "3" }
        text += "]\n        int[] faceVertexIndices = ["
        appendList(&text, count: model.triangles.count) { i, t in
            let f = model.triangles[i]
            t += "\(f.x), \(f.y), \(f.z)"
        }
        text += "]\n        rel material:binding = <\(materialPaths[0])>\n"
        text += "        normal3f[] normals = ["
        appendList(&text, count: model.normals.count) { i, t in t += tuple(model.normals[i]) }
        text += "] (\n            interpolation = \"vertex\"\n        )\n"
        text += "        uniform token orientation = \"rightHanded\"\n"
        text += "        point3f[] points = ["
        appendList(&text, count: model.positions.count) { i, t in t += tuple(model.positions[i]) }
        text += "]\n"
        if model.writesVertexColors {
            text += "        color3f[] primvars:displayColor = ["
            appendList(&text, count: model.colors.count) { i, t in t += tuple(linear(model.colors[i])) }
            text += "] (\n            interpolation = \"vertex\"\n        )\n"
        }
        if let uvs = model.uvs {
            text += "        texCoord2f[] primvars:st = ["
            appendList(&text, count: uvs.count) { i, t in t += "(\(uvs[i].x), \(uvs[i].y))" }
            text += "] (\n            interpolation = \"vertex\"\n        )\n"
        }
        text += "        uniform token subdivisionScheme = \"none\"\n"
        if model.materials.count > 1 {
            text += "        uniform token subsetFamily:materialBind:familyType = \"nonOverlapping\"\n"
            for (m, group) in model.trianglesByMaterial.enumerated() where !group.isEmpty {
                text += """

                        def GeomSubset "\(identifier(model.materials[m].name))" (
                            prepend apiSchemas = ["MaterialBindingAPI"]
                        )
                        {
                            uniform token elementType = "face"
                            uniform token familyName = "materialBind"
                            int[] indices = [
                """
                appendList(&text, count: group.count) { i, t in t += "\(group[i])" }
                text += "]\n            rel material:binding = <\(materialPaths[m])>\n        }\n"
            }
        }
        text += "    }\n\n    def Scope \"Materials\"\n    {\n"
        for (material, path) in zip(model.materials, materialPaths) {
            text += materialDefinition(material, path: path, name: identifier(material.name))
        }
        text += "    }\n}\n"
        return text
    }

    /// The layer's `doc`: what it holds, and in what unit.
    private static func documentation(_ model: MeshModel) -> String {
        let what = "Photogrammetry mesh: \(model.triangles.count) triangles"
        switch model.lengthUnit {
        case .metres: return what + ", in metres"
        case .unknown:
            return what + "; length unit unknown: the scale is arbitrary (no metric source), metersPerUnit 1 is only the number USD requires"
        }
    }

    private static func materialDefinition(_ material: MeshMaterial, path: String, name: String) -> String {
        let colorSource: String
        let reader: String
        if let texture = material.texture {
            colorSource = "\(path)/BaseColor.outputs:rgb"
            reader = """

                        def Shader "TexCoords"
                        {
                            uniform token info:id = "UsdPrimvarReader_float2"
                            string inputs:varname = "st"
                            float2 outputs:result
                        }

                        def Shader "BaseColor"
                        {
                            uniform token info:id = "UsdUVTexture"
                            asset inputs:file = @\(texture.fileName)@
                            float2 inputs:st.connect = <\(path)/TexCoords.outputs:result>
                            token inputs:sourceColorSpace = "sRGB"
                            token inputs:wrapS = "clamp"
                            token inputs:wrapT = "clamp"
                            float3 outputs:rgb
                        }
            """
        } else {
            colorSource = "\(path)/VertexColor.outputs:result"
            reader = """

                        def Shader "VertexColor"
                        {
                            uniform token info:id = "UsdPrimvarReader_float3"
                            string inputs:varname = "displayColor"
                            float3 inputs:fallback = \(tuple(material.baseColor))
                            float3 outputs:result
                        }
            """
        }
        return """
                def Material "\(name)"
                {
                    token outputs:surface.connect = <\(path)/PreviewSurface.outputs:surface>

                    def Shader "PreviewSurface"
                    {
                        uniform token info:id = "UsdPreviewSurface"
                        color3f inputs:diffuseColor.connect = <\(colorSource)>
                        float inputs:metallic = \(material.metallic)
                        float inputs:roughness = \(material.roughness)
                        token outputs:surface
                    }
        \(reader)
                }

        """
    }

    /// `count` items written by `item`, comma-separated, a line break every 8 for readability.
    private static func appendList(_ text: inout String, count: Int, _ item: (Int, inout String) -> Void) {
        for i in 0..<count {
            if i > 0 { text += i % 8 == 0 ? ",\n            " : ", " }
            item(i, &text)
        }
    }

    private static func tuple(_ v: SIMD3<Float>) -> String { "(\(v.x), \(v.y), \(v.z))" }

    /// An sRGB byte colour as linear RGB (USD colours are linear).
    private static func linear(_ c: SIMD3<UInt8>) -> SIMD3<Float> {
        SIMD3(sRGBToLinear[Int(c.x)], sRGBToLinear[Int(c.y)], sRGBToLinear[Int(c.z)])
    }

    static let sRGBToLinear: [Float] = (0..<256).map { value in
        let c = Float(value) / 255
        let linear = c <= 0.04045 ? c / 12.92 : powf((c + 0.055) / 1.055, 2.4)
        return (linear * 10_000).rounded() / 10_000  // four digits: shorter text, invisible
    }

    /// `name` made a USD identifier: letters, digits and `_`, not starting with a digit.
    static func identifier(_ name: String) -> String {
        var result = String(name.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "_" })
        if result.isEmpty || result.first!.isNumber { result = "_" + result }
        return result
    }
}
