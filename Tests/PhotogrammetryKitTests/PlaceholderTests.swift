import XCTest
@testable import PhotogrammetryKit
