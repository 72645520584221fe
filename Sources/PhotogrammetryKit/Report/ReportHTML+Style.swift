import Foundation

extension ReportHTML {
    /// Colours of the page, shared by the CSS and the SVG plots.
    enum Palette {
        static let good = "#1a7f37"
        static let fair = "#9a6700"
        static let poor = "#cf222e"
        static let muted = "#6e7781"
        static let grid = "#d0d7de"
        /// Fill of a covered dial sector (its opacity grows with the camera count).
        static let covered = "#2da44e"
    }

    /// The page's CSS: system fonts only, light colours, a table that scrolls on narrow screens.
    static let stylesheet = """
        :root { color-scheme: light; }
        body { margin: 0; background: #f6f8fa; color: #1f2328;
          font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif; }
        main { max-width: 1100px; margin: 0 auto; padding: 24px 20px 40px; }
        h1, h2 { margin: 0 0 10px; line-height: 1.2; }
        h2 { font-size: 18px; }
        section, header { background: #fff; border: 1px solid \(Palette.grid); border-radius: 8px;
          padding: 16px 20px; margin-bottom: 16px; }
        .verdict { font-size: 26px; }
        .verdict.good { color: \(Palette.good); }
        .verdict.fair { color: \(Palette.fair); }
        .verdict.poor, .verdict.unreliable, .verdict.failed { color: \(Palette.poor); }
        .problems { margin: 0 0 10px; padding-left: 20px; color: \(Palette.poor); }
        .facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(230px, 1fr));
          gap: 8px 20px; margin: 12px 0 0; }
        .facts div { border-left: 3px solid \(Palette.grid); padding-left: 10px; }
        .facts div.flag { border-left-color: \(Palette.poor); }
        .facts dt { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: \(Palette.muted); }
        .facts dd { margin: 0; font-size: 17px; font-weight: 600; }
        .facts div.flag dd { color: \(Palette.poor); }
        .aside { font-weight: 400; font-size: 14px; color: \(Palette.muted); }
        .note { margin: 12px 0 0; padding: 8px 12px; background: #f6f8fa; border-radius: 6px; }
        .advice { background: #fff8c5; border-color: #d4a72c; }
        .advice ul { margin: 0; padding-left: 22px; font-size: 17px; }
        .advice li { margin: 4px 0; }
        .advice.none { background: #dafbe1; border-color: #4ac26b; }
        .advice.none p { margin: 0; }
        .plots { display: flex; flex-wrap: wrap; gap: 20px; }
        figure { flex: 1 1 360px; margin: 0; }
        figure svg { width: 100%; max-width: 440px; height: auto; display: block; margin: 0 auto; }
        figcaption { font-size: 13px; color: \(Palette.muted); margin-top: 6px; }
        figcaption strong { color: #1f2328; }
        .empty { color: \(Palette.muted); font-style: italic; }
        .scroll { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; font-size: 14px; }
        th, td { padding: 5px 8px; border-bottom: 1px solid #eaeef2; text-align: left; vertical-align: middle; }
        th { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: \(Palette.muted); }
        .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        .renders { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
        .renders figure { margin: 0; }
        .renders img { display: inline-block; max-width: 240px; max-height: 240px; background: #eee; border-radius: 3px; }
        .renders figure.pair img { max-width: 180px; }
        .renders figcaption { font-size: 12px; color: #555; }
        td.thumb { width: 124px; }
        td.thumb img { display: block; max-width: 120px; max-height: 120px; border-radius: 3px; }
        td.name { word-break: break-all; }
        .badge { display: inline-block; padding: 1px 8px; border-radius: 10px; color: #fff;
          font-size: 12px; font-weight: 600; }
        .st-registered .badge { background: \(Palette.good); }
        .st-unregistered .badge { background: \(Palette.fair); }
        .st-rejected .badge { background: \(Palette.poor); }
        .st-other .badge { background: \(Palette.muted); }
        tr.st-rejected, tr.st-unregistered { background: #fff8f8; }
        td.low { color: \(Palette.poor); font-weight: 700; }
        p.posecheck.fail { color: \(Palette.poor); }
        tr.check.fail td { color: \(Palette.poor); }
        .stages table { width: auto; min-width: 50%; }
        .stages td.bar { width: 300px; }
        .stages td.bar span { display: block; height: 10px; background: #54aeff; border-radius: 2px; min-width: 1px; }
        .stages tr.total td { font-weight: 600; border-bottom: 0; }
        [hidden] { display: none !important; }
        .viewer-box { position: relative; }
        #viewer-canvas { display: block; width: 100%; aspect-ratio: 16 / 10; border-radius: 4px; cursor: grab; }
        .viewer-tip { position: absolute; pointer-events: none; background: #fff; border: 1px solid \(Palette.grid);
          border-radius: 4px; padding: 4px; font-size: 12px; box-shadow: 0 2px 6px rgba(0,0,0,.15); }
        .viewer-tip img { display: block; max-width: 160px; max-height: 120px; }
        .viewer-controls { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center; margin: 8px 0; font-size: 14px; }
        .viewer-camera { display: flex; gap: 12px; align-items: flex-start; margin: 8px 0; font-size: 14px; }
        .viewer-camera img { max-width: 200px; max-height: 160px; border-radius: 3px; }
        footer { font-size: 12px; color: \(Palette.muted); text-align: center; }
        """
}
