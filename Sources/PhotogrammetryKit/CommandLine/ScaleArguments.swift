import PhotogrammetryCore
import PhotogrammetrySparse

/// `--markers`, `--scale` and `--known-distance` as typed, read into options: each failure one
/// line naming the option and the value. The options' checks (``CommandSpec/Option/check``) and
/// the commands that build ``ReconstructionOptions`` read them through these, so a message is
/// written once.
public enum ScaleArguments {
    /// What `--markers` takes, for messages and the help.
    public static let markersShape = "DICT:SIZE_M, e.g. DICT_4X4_50:0.05"
    /// What `--known-distance` takes, for messages and the help.
    public static let knownDistanceShape = "ID,ID=METRES or IMAGE@X,Y+IMAGE@X,Y/IMAGE@X,Y+IMAGE@X,Y=METRES"

    /// `--markers DICT:SIZE_M`.
    public static func markers(_ text: String) throws -> MarkerSpec {
        do {
            return try MarkerSpec(parsing: text)
        } catch let error as MarkerSpec.Invalid {
            throw ArgumentParser.Failure(description: "--markers \(text): \(error); want \(markersShape)")
        }
    }

    /// `--scale FACTOR`.
    public static func scale(_ text: String) throws -> UserScale {
        do {
            return try UserScale.factor(parsing: text)
        } catch let error as MarkerSpec.Invalid {
            throw ArgumentParser.Failure(description: "--scale \(text): \(error)")
        }
    }

    /// `--known-distance`, its marker ids checked against `markers`' dictionary when given.
    public static func knownDistance(_ text: String, markers: MarkerSpec? = nil) throws -> UserScale {
        do {
            let distance = try KnownDistance(parsing: text)
            if let markers { for id in distance.markerIDs { try markers.checkID(id) } }
            return .knownDistance(distance)
        } catch let error as MarkerSpec.Invalid {
            throw ArgumentParser.Failure(description: "--known-distance \(text): \(error)")
        }
    }

    /// The user's scale from `--scale` and `--known-distance` (at most one of them), and the
    /// markers of `--markers`.
    public static func read(markers markersText: String?, scale scaleText: String?,
                            knownDistance distanceText: String?) throws -> (markers: MarkerSpec?, scale: UserScale?) {
        let markers = try markersText.map { try self.markers($0) }
        if scaleText != nil, distanceText != nil {
            throw ArgumentParser.Failure(description: "--scale and --known-distance both given: give one")
        }
        let scale = try scaleText.map { try self.scale($0) } ?? distanceText.map { try knownDistance($0, markers: markers) }
        return (markers, scale)
    }
}
