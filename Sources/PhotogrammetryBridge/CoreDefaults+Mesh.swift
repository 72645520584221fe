import CVisionMesh

/// The mesh core's option defaults (`cvis_*_options_default` in `cvis_mesh.h`), where each is
/// written; `MeshOptionDefaultsTests` checks that the Swift structs hand them back.
extension CoreDefaults {
    package static let poisson: cvis_poisson_options = { var o = cvis_poisson_options(); cvis_poisson_options_default(&o); return o }()
    package static let trim: cvis_trim_options = { var o = cvis_trim_options(); cvis_trim_options_default(&o); return o }()
    package static let clean: cvis_clean_options = { var o = cvis_clean_options(); cvis_clean_options_default(&o); return o }()
    package static let simplify: cvis_simplify_options = {
        var o = cvis_simplify_options()
        cvis_simplify_options_default(&o)
        return o
    }()
    package static let align: cvis_align_options = { var o = cvis_align_options(); cvis_align_options_default(&o); return o }()
}
