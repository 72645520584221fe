import Foundation

extension Report {
    /// What one unit of the run's models is: metres once a metric source gave ``metricScale``
    /// (depth images, pose priors, markers, a scale the user gave), else unknown.
    public var lengthUnit: LengthUnit { metricScale == nil ? .unknown : .metres }
}
