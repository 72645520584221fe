import PhotogrammetryCore

/// The capture diagnosis: what kind of capture this is, how well it covers its subject, and
/// what to do about it.
///
/// It reads the finished sparse model (poses only) and what matching learnt about static
/// features, and fills the report's `capture_kind`, angular measures, coverage dial, per-image
/// azimuth and elevation, and `advice`; first, when it is given the pairs' measured poses, the
/// pose check (`pose_check`, per-image `confidence`), whose failure replaces the advice drawn
/// from the poses.
public enum CaptureDiagnosis {
    /// What the diagnosis knows besides the model.
    public struct Context: Sendable {
        /// The user said the room is the subject (`--room`).
        public var room = false
        /// Matching found a fixed camera over a turning object.
        public var turntable = false
        /// Gravity (the direction it pulls) in the model's frame, from pose priors.
        public var gravity: SIMD3<Double>?
        /// What the pose check reads besides the model; nil skips the check.
        public var poseCheck: PoseCheck.Input?

        public init(room: Bool = false, turntable: Bool = false, gravity: SIMD3<Double>? = nil,
                    poseCheck: PoseCheck.Input? = nil) {
            self.room = room
            self.turntable = turntable
            self.gravity = gravity
            self.poseCheck = poseCheck
        }
    }

    /// Why the angular measures are null for a walk-through.
    static let walkthroughNote = "cameras stand inside the scene looking outward (a walk-through): azimuth coverage "
        + "and elevation spread about an object centre mean nothing here"

    /// Fills the diagnosis fields of `report` (whose image list and counts are already set).
    public static func diagnose(_ model: Reconstruction, context: Context, report: inout Report) {
        let registered = model.images.values.filter(\.isRegistered).sorted { $0.name < $1.name }
        let geometry = CaptureGeometry.measure(camFromWorld: registered.map { $0.camFromWorld! },
                                               gravity: context.gravity)
        if context.turntable {
            report.captureKind = "turntable"
        } else if context.room || geometry?.layout == .walkthrough {
            report.captureKind = "walkthrough"
        } else {
            report.captureKind = geometry == nil ? nil : "orbit"
        }
        if let geometry {
            let index = Dictionary(uniqueKeysWithValues: registered.enumerated().map { ($1.name, $0) })
            let angular = report.captureKind != "walkthrough"
            for k in report.images.indices {
                guard let i = index[report.images[k].name] else { continue }
                report.images[k].centerTop = [geometry.centerTop[i].x, geometry.centerTop[i].y]
                report.images[k].directionTop = [geometry.directionTop[i].x, geometry.directionTop[i].y]
                if angular {
                    report.images[k].azimuthDeg = geometry.azimuthDeg[i]
                    report.images[k].elevationDeg = geometry.elevationDeg[i]
                }
            }
            if angular {
                report.azimuthCoverageDeg = geometry.azimuthCoverageDeg
                report.elevationSpreadDeg = geometry.elevationSpreadDeg
                report.upSource = geometry.upSource.rawValue
                report.coverageSectors = geometry.coverageSectors(upperRingFromDeg: ReportImage.upperRingElevationDeg)
                report.angularMeasuresNote = nil
            } else {
                report.angularMeasuresNote = walkthroughNote
            }
        } else {
            report.angularMeasuresNote = "fewer than three registered cameras in a usable layout: no angular measures"
        }
        if let input = context.poseCheck, !registered.isEmpty {
            let result = PoseCheck.run(model, input)
            report.poseCheck = result.summary
            for k in report.images.indices {
                guard let entry = result.confidence[report.images[k].name] else { continue }
                report.images[k].confidence = entry.value
                report.images[k].confidenceReasons = entry.reasons.isEmpty ? nil : entry.reasons
            }
        }
        report.texture = TextureSummary.measure(report.images)
        report.advice = CaptureAdvice.advise(report, largestGapDeg: geometry?.largestGapDeg,
                                             meanElevationDeg: geometry.map { $0.elevationDeg.reduce(0, +) / Double(max(1, $0.elevationDeg.count)) })
    }
}
