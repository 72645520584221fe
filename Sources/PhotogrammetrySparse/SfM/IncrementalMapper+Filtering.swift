import PhotogrammetryCore

extension IncrementalMapper {
    /// Removes observations with a large reprojection error, then points that lost their track
    /// or whose rays meet at too small an angle to fix their depth.
    func filterObservations(ofPoints ids: [Point3DID]) {
        let maxError = options.filterMaxReprojectionErrorPx
        for id in ids {
            guard let point = reconstruction.points3D[id] else { continue }
            for element in point.track {
                let error = reconstruction.reprojectionError(of: element, position: point.position)
                if error == nil || error! > maxError { deleteObservation(element, of: id) }
            }
            guard let kept = reconstruction.points3D[id] else { continue }
            if maxTriangulationAngleDeg(of: kept) < options.filterMinTriangulationAngleDeg {
                deletePoint(id)
            }
        }
    }

    /// The largest angle between two rays of a point's track, in degrees.
    package func maxTriangulationAngleDeg(of point: Point3D) -> Double {
        let centers = point.track.prefix(24).compactMap {
            reconstruction.images[$0.imageID]?.camFromWorld?.centerInWorld
        }
        var best = 0.0
        for a in 0..<centers.count {
            for b in (a + 1)..<centers.count {
                best = max(best, rayAngleDegrees(point.position, centers[a], centers[b]))
            }
        }
        return best
    }
}
