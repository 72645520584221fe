import CVision
import Foundation
import PhotogrammetryCore

/// A mesh's texture: atlas pages, and per face the page, three UV corners and the view the
/// face's colour came from. Made by the C++ core (view selection, charts, packing, seam
/// levelling: `cvis_texture.h`).
public final class TextureAtlas: @unchecked Sendable {
    package let handle: OpaquePointer

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit { cvis_texture_atlas_destroy(handle) }

    /// Textures a mesh (positions, triangles; `colors`, one per position or nil, colour the
    /// faces no view sees) from undistorted pinhole views and their images.
    ///
    /// - Parameters:
    ///   - views: Intrinsics at the size of each image file, and poses.
    ///   - imageURLs: One colour image per view.
    ///   - maskURLs: Nil, or one mask per view (nil entries: no mask); 255 marks the object, and a
    ///     face takes its colour from a view only where its centroid and its corners pulled a
    ///     quarter of the way in are inside the mask.
    /// - Throws: ``CVisionError``: `.invalidArgument` for a mesh without triangles or a mask of
    ///   another size, `.decodeError` naming an unreadable image, `.limitExceeded` when the charts
    ///   cannot fit the pages at any scale.
    public static func make(positions: [SIMD3<Float>], triangles: [SIMD3<Int32>], colors: [SIMD3<UInt8>]?,
                            views: [MVSView], imageURLs: [URL], maskURLs: [URL?]? = nil,
                            options: TextureOptions = TextureOptions()) throws -> TextureAtlas {
        try options.validate()
        guard imageURLs.count == views.count, maskURLs.map({ $0.count == views.count }) ?? true,
              colors.map({ $0.count == positions.count }) ?? true else {
            throw CVisionError(code: .invalidArgument, message: "texture: one image (and mask) per view, one colour per vertex")
        }
        try MemoryBudget.check(needs: memoryBytes(triangles: triangles.count, views: views, options: options),
                               for: "texturing \(triangles.count) triangles from \(views.count) views on \(options.pageSize)² pages")
        let cViews = views.map(\.cView)
        var cOptions = options.cOptions
        let flatColors = colors?.flatMap { [$0.x, $0.y, $0.z] }
        let maskPaths: [String?] = maskURLs?.map { $0?.path } ?? []
        var handle: OpaquePointer?
        let status = withCStringArray(imageURLs.map(\.path)) { images in
            withCStringArray(maskPaths) { masks in
                // SIMD3 has the stride of four scalars: the core takes packed triples.
                cvis_texture_mesh(Int64(positions.count), positions.flatMap { [$0.x, $0.y, $0.z] },
                                  Int64(triangles.count), triangles.flatMap { [$0.x, $0.y, $0.z] }, flatColors,
                                  Int32(views.count), cViews, images, maskPaths.isEmpty ? nil : masks,
                                  &cOptions, &handle)
            }
        }
        try check(status)
        return TextureAtlas(handle: handle!)
    }

    /// The least texturing takes, for ``MemoryBudget``: every view's mask, one decoded view (and
    /// its area-filtered copy) per thread, one page of RGB texels with its chart index, and the
    /// mesh's per-face records (view candidates, charts, UVs: some 200 bytes a triangle).
    static func memoryBytes(triangles: Int, views: [MVSView], options: TextureOptions) -> Int {
        let pixels = views.map { $0.width * $0.height }
        let largest = pixels.max() ?? 0
        return pixels.reduce(0, +) + max(1, options.numThreads) * 6 * largest
            + 7 * options.pageSize * options.pageSize + 200 * triangles
    }

    /// Atlas pages.
    public var pageCount: Int { Int(cvis_texture_atlas_num_pages(handle)) }
    /// Side of every (square) page in texels.
    public var pageSize: Int { Int(cvis_texture_atlas_page_size(handle)) }
    /// Charts: connected faces textured from one view (and one per face no view sees).
    public var chartCount: Int { Int(cvis_texture_atlas_num_charts(handle)) }
    /// Texels per source pixel the charts were sampled at.
    public var scale: Double { cvis_texture_atlas_scale(handle) }

    /// Page `i` as RGB bytes, row-major, `pageSize * pageSize * 3`.
    public func page(_ i: Int) -> [UInt8] {
        guard let base = cvis_texture_atlas_page(handle, Int32(i)) else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: pageSize * pageSize * 3))
    }

    /// Per face, its three corners' (u, v) in 0...1, (0, 0) the top-left corner of the page.
    public var uvs: [SIMD2<Float>] {
        let n = Int(cvis_texture_atlas_num_faces(handle))
        guard let base = cvis_texture_atlas_uvs(handle) else { return [] }
        return (0..<(3 * n)).map { SIMD2(base[2 * $0], base[2 * $0 + 1]) }
    }

    /// Per face, the page its UVs refer to.
    public var facePages: [Int] { faceInts(cvis_texture_atlas_face_pages(handle)) }
    /// Per face, the view its colour came from; -1 when no view saw it.
    public var faceViews: [Int] { faceInts(cvis_texture_atlas_face_views(handle)) }

    private func faceInts(_ base: UnsafePointer<Int32>?) -> [Int] {
        let n = Int(cvis_texture_atlas_num_faces(handle))
        guard let base else { return [] }
        return (0..<n).map { Int(base[$0]) }
    }

    /// Page `i` encoded as JPEG at `jpegQuality` (1...100), or as PNG when it is 0.
    public func encodedPage(_ i: Int, jpegQuality: Int) throws -> Data {
        var buffer: OpaquePointer?
        try check(cvis_texture_atlas_encode_page(handle, Int32(i), Int32(jpegQuality), &buffer))
        defer { cvis_buffer_destroy(buffer) }
        return Data(bytes: cvis_buffer_data(buffer), count: cvis_buffer_size(buffer))
    }

    /// Writes page `i` as PNG or JPEG (by the extension), through a temporary name.
    public func savePage(_ i: Int, to url: URL) throws {
        try check(cvis_texture_atlas_save_page(handle, Int32(i), url.path))
    }
}
