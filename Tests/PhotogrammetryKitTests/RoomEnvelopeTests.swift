import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryKit
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// The room's envelope found among every view's sure pixels, and the planar-prior pass filling a
/// bare ceiling and floor from it, in a rendered box room seen from inside.
final class RoomEnvelopeTests: XCTestCase {
    /// A room 5 m by 4 m and 2.6 m high (y is down), its walls textured and its ceiling and floor
    /// bare, each one plain tone, so that only their creases with the walls can be matched. Every
    /// plane's normal faces into the room.
    private static let halfSize = SIMD3(2.5, 1.3, 2.0)
    private static let sides: [(normal: SIMD3<Double>, offset: Double)] = [
        (SIMD3(0, 1, 0), halfSize.y), (SIMD3(0, -1, 0), halfSize.y),  // ceiling, floor
        (SIMD3(1, 0, 0), halfSize.x), (SIMD3(-1, 0, 0), halfSize.x),
        (SIMD3(0, 0, 1), halfSize.z), (SIMD3(0, 0, -1), halfSize.z),
    ]
    private static let ceiling = 0, floor = 1

    /// Cameras near the room's middle, in pairs 0.4 m apart, each pair looking into one corner, up
    /// at its ceiling or down at its floor; view 0 looks up.
    private func room() -> MVSTestScene {
        var scene = MVSTestScene(surfaces: Self.sides.map { .plane(normal: $0.normal, offset: $0.offset) },
                                 sources: 1, width: 320, height: 240, focal: 260)
        scene.plainSurfaces = [Self.ceiling: 0.85, Self.floor: 0.3]
        let template = scene.views[0]
        scene.views = []
        for (x, z) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)] {
            for height in [-Self.halfSize.y, Self.halfSize.y] {
                let corner = SIMD3(x * Self.halfSize.x, height, z * Self.halfSize.z)
                // 0.4 m apart across the line of sight.
                let across = SIMD3(-z, 0, x) / 2.0.squareRoot() * 0.2
                for side in [-1.0, 1.0] {
                    var view = template
                    view.camFromWorld = MVSTestScene.lookAt(from: side * across - 0.2 * SIMD3(x, 0, z),
                                                            to: SIMD3(corner.x * 0.9, corner.y * 0.7, corner.z * 0.9))
                    scene.views.append(view)
                }
            }
        }
        return scene
    }

    /// Every view's photometric map, each matched against all the others.
    private func photometricMaps(_ scene: MVSTestScene, in directory: URL) throws -> (MVSWorkspace, [URL]) {
        let (files, _, _) = try scene.write(to: directory)
        let workspace = try MVSWorkspace(views: scene.views, imageFiles: files, maskFiles: [])
        let maps = scene.views.indices.map { directory.appendingPathComponent("view\($0).photometric.dm") }
        for reference in scene.views.indices {
            let sources = scene.views.indices.filter { $0 != reference }
            try workspace.computeDepthMap(PatchMatchProblem(reference: reference, sources: sources, depthRange: 0.5...8),
                                          options: PatchMatchOptions(), output: maps[reference])
        }
        return (workspace, maps)
    }

    func testTheEnvelopeIsTheRoomsSixSides() throws {
        let scene = room()
        let (workspace, maps) = try photometricMaps(scene, in: try makeBridgeTestDirectory(self))
        assertSixSides(try workspace.roomEnvelope(depthMaps: maps))
        // Not a room seen from inside: with one pair of views (looking up at a ceiling corner) and
        // no other, no square box holds the cameras.
        var two = Array(repeating: URL?.none, count: maps.count)
        two[0] = maps[0]
        two[1] = maps[1]
        XCTAssertEqual(try workspace.roomEnvelope(depthMaps: two), [])
    }

    /// Views that look down into the corners only see the walls up to where their frames end,
    /// not the ceiling: the walls' points thin out there, below walls that other views matched
    /// higher, and no envelope is made of them.
    func testViewsThatNeverSeeTheCeilingLeaveNoEnvelope() throws {
        var scene = room()
        scene.views = scene.views.enumerated().filter { ($0.offset / 2) % 2 == 1 }.map(\.element)
        let (workspace, maps) = try photometricMaps(scene, in: try makeBridgeTestDirectory(self))
        XCTAssertEqual(try workspace.roomEnvelope(depthMaps: maps), [])
    }

    /// Views that see the ceiling only at their frames' top edge, the walls' points thinning out
    /// towards it: too few of those reach any height for the envelope's first guess to place a
    /// ceiling (it leaves the frames' edges out), and it is looked for beyond the cameras' middle
    /// among its own points. The envelope is the room's six sides; with the ceiling's pixels
    /// gone too, there is none.
    func testACeilingSeenOnlyAtTheFramesTopIsFoundAboveTheWallsThinningOut() throws {
        let scene = room()
        let directory = try makeBridgeTestDirectory(self)
        let (workspace, maps) = try mapsSeeingTheCeilingAtTheFramesTop(scene, in: directory)
        assertSixSides(try workspace.roomEnvelope(depthMaps: maps))
        let (_, unseen) = try mapsSeeingTheCeilingAtTheFramesTop(scene, in: directory, ceilingRows: 0)
        XCTAssertEqual(try workspace.roomEnvelope(depthMaps: unseen), [])
    }

    /// Depth maps as views match a room whose ceiling they see only at their frames' top edge:
    /// every surface at its true depth and normal, surely (cost 0.1); the floor throughout; the
    /// ceiling only in the frame's top `ceilingRows` rows (by default 5 %, those the envelope's
    /// first guess leaves out); each view's walls up to its own height above the floor, evenly
    /// from 1.2 m for the first view to 2.55 m for the last.
    private func mapsSeeingTheCeilingAtTheFramesTop(_ scene: MVSTestScene, in directory: URL,
                                                    ceilingRows: Int? = nil) throws -> (MVSWorkspace, [URL]) {
        let (files, _, _) = try scene.write(to: directory)
        let workspace = try MVSWorkspace(views: scene.views, imageFiles: files, maskFiles: [])
        var urls: [URL] = []
        for (index, view) in scene.views.enumerated() {
            let map = try DepthMap(width: view.width, height: view.height)
            let worldFromCam = view.camFromWorld.inverse, origin = view.camFromWorld.centerInWorld
            let top = 1.2 + 1.35 * Double(index) / Double(scene.views.count - 1)
            map.withDepths { depths in
                map.withNormals { normals in
                    map.withCosts { costs in
                        for y in 0..<view.height {
                            for x in 0..<view.width {
                                let ray = SIMD3((Double(x) + 0.5 - view.cx) / view.fx, (Double(y) + 0.5 - view.cy) / view.fy, 1)
                                var direction = worldFromCam.rotation * ray
                                direction /= (direction * direction).sum().squareRoot()
                                guard let hit = scene.hit(origin: origin, direction: direction) else { continue }
                                let point = origin + hit.t * direction
                                switch hit.surface {
                                case Self.ceiling: guard y < ceilingRows ?? view.height / 20 else { continue }
                                case Self.floor: break
                                default: guard Self.halfSize.y - point.y <= top else { continue }  // y is down
                                }
                                let i = y * view.width + x
                                depths[i] = Float(view.camFromWorld.apply(point).z)
                                let normal = view.camFromWorld.rotation * Self.sides[hit.surface].normal
                                for c in 0..<3 { normals[3 * i + c] = Float(normal[c]) }
                                costs[i] = 0.1
                            }
                        }
                    }
                }
            }
            let url = directory.appendingPathComponent("view\(index).ceiling\(ceilingRows ?? -1).dm")
            try map.save(to: url)
            urls.append(url)
        }
        return (workspace, urls)
    }

    /// A textured partition from floor to ceiling across half the room makes it no box: the box's
    /// side behind the partition would fill the partition's bare parts outside the room.
    func testAPartitionAcrossTheRoomLeavesNoEnvelope() throws {
        var scene = room()
        let h = Self.halfSize
        scene.surfaces.append(.panel(normal: SIMD3(1, 0, 0), offset: -1.2, lower: SIMD3(1.2, -h.y, -h.z),
                                     upper: SIMD3(1.2, h.y, 0.2)))
        let (workspace, maps) = try photometricMaps(scene, in: try makeBridgeTestDirectory(self))
        XCTAssertEqual(try workspace.roomEnvelope(depthMaps: maps), [])
    }

    /// A room not built square: a textured ceiling sloping at 30 degrees over one end of the room
    /// (below the flat ceiling's height) leaves no envelope, whose flat ceiling would lie above it.
    func testASlopingCeilingLeavesNoEnvelope() throws {
        var scene = room()
        let h = Self.halfSize
        // Down towards +x (y is down) from the flat ceiling at x = 0.8: n . X + d = 0 through (0.8, -h.y).
        let normal = SIMD3(-sin(Double.pi / 6), cos(Double.pi / 6), 0)
        scene.surfaces.append(.panel(normal: normal, offset: -(normal * SIMD3(0.8, -h.y, 0)).sum(),
                                     lower: SIMD3(0.8, -h.y, -h.z), upper: SIMD3(h.x, h.y, h.z)))
        let (workspace, maps) = try photometricMaps(scene, in: try makeBridgeTestDirectory(self))
        XCTAssertEqual(try workspace.roomEnvelope(depthMaps: maps), [])
    }

    /// An L: the room's corner at +x, +z walled off by two bare walls, x = 1.5 and z = 1 (1 m by
    /// 1 m of the floor plan), each one plain tone. No view sees behind them, and their creases
    /// with floor, ceiling and each other outline the corner in the floor plan: it is a notch,
    /// two faces on the bare walls. Views 0 and 1 look up into that corner: with the box alone
    /// their bare walls' pixels would take the box's sides behind them, outside the room; with
    /// the notch, they lie on the walls.
    func testABareWalledOffCornerIsANotchAndItsWallsFillOnThem() throws {
        let scene = walledOffCorner(bare: true)
        let (workspace, maps) = try photometricMaps(scene, in: try makeBridgeTestDirectory(self))
        let envelope = try workspace.roomEnvelope(depthMaps: maps)
        assertNotched(envelope)
        guard envelope.count == 8 else { return }

        var options = PatchMatchOptions()
        options.planarPriors = true
        for reference in [0, 1] {
            let sources = scene.views.indices.filter { $0 != reference }
            func planar(_ envelope: [WorldPlane]) throws -> DepthMap {
                let output = maps[0].deletingLastPathComponent().appendingPathComponent("view\(reference).planar\(envelope.count).dm")
                try workspace.computeDepthMap(
                    PatchMatchProblem(reference: reference, sources: sources, depthRange: 0.5...8, pass: .planarPrior,
                                      previousDepth: maps[reference], sourceDepths: sources.map { maps[$0] },
                                      envelope: envelope),
                    options: options, output: output)
                return try DepthMap.load(output)
            }
            // The view's pixels on the bare walls, and where they are filled.
            let view = scene.views[reference], truth = scene.render(reference).depth
            let origin = view.camFromWorld.centerInWorld
            let wallPixels = truth.indices.filter { i in
                let ray = SIMD3((Double(i % view.width) + 0.5 - view.cx) / view.fx, (Double(i / view.width) + 0.5 - view.cy) / view.fy, 1)
                let direction = view.camFromWorld.inverse.apply(ray) - origin
                let surface = scene.hit(origin: origin, direction: direction / (direction * direction).sum().squareRoot())?.surface
                return surface.map { $0 >= Self.sides.count } ?? false
            }
            XCTAssertGreaterThan(wallPixels.count, 5000, "view \(reference)")
            func filled(_ map: DepthMap) -> (onWall: Double, behind: Double) {
                map.withDepths { depths in
                    let on = wallPixels.filter { depths[$0] > 0 && abs(depths[$0] - truth[$0]) < 0.02 * truth[$0] }
                    let behind = wallPixels.filter { depths[$0] > 1.05 * truth[$0] }
                    return (Double(on.count) / Double(wallPixels.count), Double(behind.count) / Double(wallPixels.count))
                }
            }
            let box = filled(try planar(Array(envelope.prefix(6)))), notched = filled(try planar(envelope))
            XCTAssertGreaterThan(box.behind, 0.5, "view \(reference), the box alone")
            XCTAssertGreaterThan(notched.onWall, 0.8, "view \(reference), with the notch")
            XCTAssertLessThan(notched.behind, 0.05, "view \(reference), with the notch")
        }
    }

    /// The same corner walled off by textured walls: they are found as planes inside the box,
    /// which would make it no room's, but they are the notch's faces.
    func testATexturedWalledOffCornerIsANotch() throws {
        let scene = walledOffCorner(bare: false)
        let (workspace, maps) = try photometricMaps(scene, in: try makeBridgeTestDirectory(self))
        assertNotched(try workspace.roomEnvelope(depthMaps: maps))
    }

    private static let notchFaces: [(normal: SIMD3<Double>, offset: Double)] = [(SIMD3(-1, 0, 0), 1.5), (SIMD3(0, 0, -1), 1.0)]

    /// The room with its corner at +x, +z behind the walls x = 1.5 and z = 1, full height; bare
    /// walls are each one plain tone.
    private func walledOffCorner(bare: Bool) -> MVSTestScene {
        var scene = room()
        let h = Self.halfSize, faces = Self.notchFaces
        scene.surfaces.append(.panel(normal: faces[0].normal, offset: faces[0].offset, lower: SIMD3(1.5, -h.y, 1.0),
                                     upper: SIMD3(1.5, h.y, h.z)))
        scene.surfaces.append(.panel(normal: faces[1].normal, offset: faces[1].offset, lower: SIMD3(1.5, -h.y, 1.0),
                                     upper: SIMD3(h.x, h.y, 1.0)))
        if bare {
            scene.plainSurfaces[Self.sides.count] = 0.6
            scene.plainSurfaces[Self.sides.count + 1] = 0.45
        }
        return scene
    }

    /// The box's six sides, then the notch's two faces within 1 degree and 3 cm.
    /// The room's six sides: each true side has one plane within 1 degree and 3 cm of it, its
    /// normal into the room.
    private func assertSixSides(_ envelope: [WorldPlane], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(envelope.count, 6, file: file, line: line)
        for side in Self.sides {
            let match = envelope.first { ($0.normal * side.normal).sum() > cos(1 * Double.pi / 180) }
            XCTAssertNotNil(match, "no plane along \(side.normal)", file: file, line: line)
            if let match { XCTAssertEqual(match.offset, side.offset, accuracy: 0.03, "\(side.normal)", file: file, line: line) }
        }
    }

    private func assertNotched(_ envelope: [WorldPlane], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(envelope.count, 8, file: file, line: line)
        guard envelope.count == 8 else { return }
        for side in Self.sides {
            XCTAssertNotNil(envelope.prefix(6).first { ($0.normal * side.normal).sum() > cos(1 * Double.pi / 180) },
                            "no side along \(side.normal)", file: file, line: line)
        }
        for face in Self.notchFaces {
            let match = envelope.suffix(2).first { ($0.normal * face.normal).sum() > cos(1 * Double.pi / 180) }
            XCTAssertNotNil(match, "no notch face along \(face.normal)", file: file, line: line)
            if let match { XCTAssertEqual(match.offset, face.offset, accuracy: 0.03, "\(face.normal)", file: file, line: line) }
        }
    }

    /// View 0 looks up into a corner: the bare ceiling fills most of its top. Alone, the view sees
    /// the ceiling's creases with two walls, which lie on a line, and little of the ceiling fills;
    /// with the room's envelope, found among every view's pixels, most of it does, on its plane.
    func testTheEnvelopeFillsABareCeilingTheViewAloneCannot() throws {
        let scene = room()
        let (workspace, maps) = try photometricMaps(scene, in: try makeBridgeTestDirectory(self))
        let envelope = try workspace.roomEnvelope(depthMaps: maps)
        XCTAssertEqual(envelope.count, 6)
        var options = PatchMatchOptions()
        options.planarPriors = true
        let sources = Array(1..<scene.views.count)
        func planar(_ envelope: [WorldPlane]) throws -> DepthMap {
            let output = maps[0].deletingLastPathComponent().appendingPathComponent("view0.planar\(envelope.count).dm")
            try workspace.computeDepthMap(
                PatchMatchProblem(reference: 0, sources: sources, depthRange: 0.5...8, pass: .planarPrior,
                                  previousDepth: maps[0], sourceDepths: sources.map { maps[$0] }, envelope: envelope),
                options: options, output: output)
            return try DepthMap.load(output)
        }
        let alone = try planar([]), withEnvelope = try planar(envelope)

        // The view's ceiling pixels 0.3 m or more from the walls (their windows hold no crease).
        let view = scene.views[0], truth = scene.render(0).depth
        let origin = view.camFromWorld.centerInWorld
        let ceilingPixels = truth.indices.filter { i in
            let ray = SIMD3((Double(i % view.width) + 0.5 - view.cx) / view.fx, (Double(i / view.width) + 0.5 - view.cy) / view.fy, 1)
            let point = view.camFromWorld.inverse.apply(ray * Double(truth[i]))
            let direction = point - origin
            guard scene.hit(origin: origin, direction: direction / (direction * direction).sum().squareRoot())?.surface == Self.ceiling
            else { return false }
            return abs(point.x) < Self.halfSize.x - 0.3 && abs(point.z) < Self.halfSize.z - 0.3
        }
        XCTAssertGreaterThan(ceilingPixels.count, 2000)
        func filled(_ map: DepthMap) -> (share: Double, onPlane: Double) {
            map.withDepths { depths in
                let valid = ceilingPixels.filter { depths[$0] > 0 }
                let on = valid.filter { abs(depths[$0] - truth[$0]) < 0.02 * truth[$0] }
                return (Double(valid.count) / Double(ceilingPixels.count), Double(on.count) / Double(max(1, valid.count)))
            }
        }
        let before = filled(alone), after = filled(withEnvelope)
        XCTAssertLessThan(before.share, 0.5, "alone")
        XCTAssertGreaterThan(after.share, 0.9, "with the envelope")
        XCTAssertGreaterThan(after.onPlane, 0.95, "with the envelope")
    }

    /// The envelope closed where the cloud has nothing: with a cloud holding only a quarter of
    /// the floor (in one colour), the closing points cover the rest of all six sides, on their
    /// planes with their normals into the room, and not that quarter; those on the floor take the
    /// floor points' colour, the others (no points of their own) mid grey.
    func testTheEnvelopeIsClosedOnItsPlanesWhereTheCloudHasNothing() throws {
        let scene = room()
        let (workspace, maps) = try photometricMaps(scene, in: try makeBridgeTestDirectory(self))
        let envelope = try workspace.roomEnvelope(depthMaps: maps)
        XCTAssertEqual(envelope.count, 6)
        let h = Self.halfSize
        // The floor (y = h.y: y is down) where x > 0 and z > 0, every 2 cm, facing up into the room.
        var quarter: [SIMD3<Float>] = []
        for x in stride(from: 0.01, to: h.x, by: 0.02) {
            for z in stride(from: 0.01, to: h.z, by: 0.02) { quarter.append(SIMD3(Float(x), Float(h.y), Float(z))) }
        }
        let cloud = try PointCloud(points: quarter, normals: Array(repeating: SIMD3(0, -1, 0), count: quarter.count),
                                   colors: Array(repeating: SIMD3(200, 100, 50), count: quarter.count))
        let (closing, area) = try workspace.closeEnvelope(envelope, depthMaps: maps, cloud: cloud, threads: 2)
        let points = closing.points, normals = closing.normals ?? [], colours = closing.colors ?? []
        XCTAssertGreaterThan(points.count, 1000)
        XCTAssertEqual(normals.count, points.count)

        // Each facing into the room as a true side does, on that side (within 3 cm); the floor's in
        // its colour.
        var offSide = 0, wrongNormal = 0, wrongColour = 0, inQuarter = 0
        for (k, p) in points.enumerated() {
            let point = SIMD3<Double>(p)
            guard let side = Self.sides.indices.first(where: { (SIMD3<Double>(normals[k]) * Self.sides[$0].normal).sum() > 0.99 })
            else { wrongNormal += 1; continue }
            if !(abs(Self.distance(point, Self.sides[side])) < 0.03 && abs(point.x) < h.x + 0.03 && abs(point.y) < h.y + 0.03
                 && abs(point.z) < h.z + 0.03) { offSide += 1 }
            let expected: SIMD3<UInt8> = side == Self.floor ? SIMD3(200, 100, 50) : SIMD3(128, 128, 128)
            if colours[k] != expected { wrongColour += 1 }
            if side == Self.floor, point.x > 0.1, point.z > 0.1 { inQuarter += 1 }
        }
        XCTAssertEqual(offSide, 0)
        XCTAssertEqual(wrongNormal, 0)
        XCTAssertEqual(wrongColour, 0)
        XCTAssertEqual(inQuarter, 0)

        // The rest of the box's sides, every 10 cm, has a closing point within 3 cm.
        var cells = Set<SIMD3<Int>>()
        for p in points { cells.insert(SIMD3<Int>((SIMD3<Double>(p) / 0.03).rounded(.down))) }
        func near(_ point: SIMD3<Double>) -> Bool {
            let cell = SIMD3<Int>((point / 0.03).rounded(.down))
            for dx in -1...1 { for dy in -1...1 { for dz in -1...1 where cells.contains(cell &+ SIMD3(dx, dy, dz)) { return true } } }
            return false
        }
        var grid: [SIMD3<Double>] = []
        for side in Self.sides {
            let across = side.normal.x != 0 ? [1, 2] : side.normal.y != 0 ? [0, 2] : [0, 1]
            for a in stride(from: -h[across[0]] + 0.05, to: h[across[0]], by: 0.1) {
                for b in stride(from: -h[across[1]] + 0.05, to: h[across[1]], by: 0.1) {
                    var point = -side.offset * side.normal
                    point[across[0]] = a
                    point[across[1]] = b
                    if side.normal.y < 0, a > -0.1, b > -0.1 { continue }  // the cloud's quarter, and 10 cm beside it
                    grid.append(point)
                }
            }
        }
        let covered = grid.filter(near).count
        XCTAssertGreaterThan(Double(covered) / Double(grid.count), 0.98)
        // The area stands for the box's, less the quarter.
        let box = 8 * (h.x * h.y + h.x * h.z + h.y * h.z)
        XCTAssertEqual(area, box - h.x * h.z, accuracy: 0.1 * box)
    }

    /// What a view sees through stays open: a doorway in its depth map (a patch 30 % farther than
    /// the wall, surely matched) leaves no closing point in front of it, where without it there
    /// are hundreds.
    func testWhatAViewSeesThroughStaysOpen() throws {
        let scene = room()
        let (workspace, maps) = try photometricMaps(scene, in: try makeBridgeTestDirectory(self))
        let envelope = try workspace.roomEnvelope(depthMaps: maps)
        XCTAssertEqual(envelope.count, 6)
        let empty = try PointCloud(points: [])
        let view = scene.views[2]
        let doorway = (x: view.width / 3..<2 * view.width / 3, y: view.height / 3..<2 * view.height / 3)
        // Counted 2 pixels in from the doorway's edges: the points are floats.
        func inFront(_ closing: PointCloud) -> Int {
            closing.points.filter { p in
                guard let pixel = view.project(SIMD3<Double>(p)) else { return false }
                return pixel.x >= Double(doorway.x.lowerBound + 2) && pixel.x < Double(doorway.x.upperBound - 2)
                    && pixel.y >= Double(doorway.y.lowerBound + 2) && pixel.y < Double(doorway.y.upperBound - 2)
            }.count
        }
        let closed = try workspace.closeEnvelope(envelope, depthMaps: maps, cloud: empty, threads: 2).points
        XCTAssertGreaterThan(inFront(closed), 300)

        let map = try DepthMap.load(maps[2]), truth = scene.render(2).depth
        map.withDepths { depths in
            map.withCosts { costs in
                for y in doorway.y {
                    for x in doorway.x { depths[y * map.width + x] = 1.3 * truth[y * map.width + x]; costs[y * map.width + x] = 0.1 }
                }
            }
        }
        var doorwayMaps: [URL?] = maps
        doorwayMaps[2] = maps[2].deletingLastPathComponent().appendingPathComponent("view2.doorway.dm")
        try map.save(to: doorwayMaps[2]!)
        let open = try workspace.closeEnvelope(envelope, depthMaps: doorwayMaps, cloud: empty, threads: 2).points
        XCTAssertEqual(inFront(open), 0)
    }

    /// `--close-envelope off` reaches the dense stage, whose key names it only when it is off:
    /// runs made before it resume.
    func testClosingTheEnvelopeIsOnByDefaultAndKeyedOnlyWhenOff() {
        var options = ReconstructionOptions()
        options.room = true
        XCTAssertTrue(options.denseStage.closeEnvelope)
        XCTAssertFalse(options.denseStage.keyText.contains("closeEnvelope"))
        options.closeEnvelope = false
        XCTAssertFalse(options.denseStage.closeEnvelope)
        XCTAssertTrue(options.denseStage.keyText.hasSuffix(" closeEnvelope=false"))
    }

    private static func distance(_ point: SIMD3<Double>, _ side: (normal: SIMD3<Double>, offset: Double)) -> Double {
        (side.normal * point).sum() + side.offset
    }

    /// The report's extents of a box 5 m long, 4 m wide and 2.6 m high, turned 30 degrees about
    /// the model's up (+Y), its floor below the origin: height along up, the floor's extents
    /// longer first, and its floor's area, less a corner 1 m by 1.5 m walled off; fewer than six
    /// planes, or a notch without its second face, have none.
    func testTheReportedExtentsAreTheBoxsHeightLengthAndWidth() {
        let turn = Double.pi / 6
        let along = SIMD3(cos(turn), 0, sin(turn)), across = SIMD3(-sin(turn), 0, cos(turn)), up = SIMD3<Double>(0, 1, 0)
        // Normals into the room; the room spans -2..3 along `along`, -1.5..2.5 across, -1..1.6 up.
        let planes = [WorldPlane(normal: up, offset: 1), WorldPlane(normal: -up, offset: 1.6),
                      WorldPlane(normal: along, offset: 2), WorldPlane(normal: -along, offset: 3),
                      WorldPlane(normal: across, offset: 1.5), WorldPlane(normal: -across, offset: 2.5)]
        let envelope = RoomEnvelope(planes: planes.reversed())
        XCTAssertEqual(envelope?.height ?? 0, 2.6, accuracy: 1e-12)
        XCTAssertEqual(envelope?.length ?? 0, 5, accuracy: 1e-12)
        XCTAssertEqual(envelope?.width ?? 0, 4, accuracy: 1e-12)
        XCTAssertEqual(envelope?.floorArea ?? 0, 20, accuracy: 1e-12)
        XCTAssertEqual(envelope?.notches, 0)
        XCTAssertNil(RoomEnvelope(planes: Array(planes.prefix(5))))
        // The corner beyond 2 along and 1 across, its faces' normals into the room.
        let notch = [WorldPlane(normal: -along, offset: 2), WorldPlane(normal: -across, offset: 1)]
        let lShaped = RoomEnvelope(planes: planes + notch)
        XCTAssertEqual(lShaped?.length ?? 0, 5, accuracy: 1e-12)
        XCTAssertEqual(lShaped?.floorArea ?? 0, 20 - 1 * 1.5, accuracy: 1e-12)
        XCTAssertEqual(lShaped?.notches, 1)
        XCTAssertNil(RoomEnvelope(planes: planes + notch.prefix(1)))
    }

    /// The summary's words for the envelope: metres only with a metric scale, and the floor of a
    /// room with a corner walled off.
    func testTheSummarySaysTheEnvelopesSizeInItsUnit() {
        var report = Report()
        report.denseRoomEnvelope = RoomEnvelope(height: 2.6, length: 5, width: 4, floorArea: 20, notches: 0)
        XCTAssertEqual(ReportFormat.roomEnvelope(report), "a room's envelope 5.00 × 4.00 units, 2.60 units high")
        report.metricScale = 1.5
        report.denseRoomEnvelope = RoomEnvelope(height: 2.6, length: 5, width: 4, floorArea: 18.5, notches: 1)
        XCTAssertEqual(ReportFormat.roomEnvelope(report),
                       "a room's envelope 5.00 × 4.00 m, 2.60 m high, its floor 18.50 m² with 1 corner walled off")
        report.denseRoomEnvelope?.closedArea = 9.25
        XCTAssertEqual(ReportFormat.roomEnvelope(report),
                       "a room's envelope 5.00 × 4.00 m, 2.60 m high, its floor 18.50 m² with 1 corner walled off, "
                       + "9.25 m² of it closed where the views matched nothing")
        report.denseRoomEnvelope = nil
        XCTAssertNil(ReportFormat.roomEnvelope(report))
    }
}
