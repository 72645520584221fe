#!/usr/bin/env python3
"""Checks report.html's 3D view in headless Chromium (WebGL through SwiftShader).

    viewer-check.py REPORT.html OUTDIR [--camera NAME]

Drives the browser over the DevTools protocol on a pipe (no network port), with real mouse
events: loads the page from file://, waits for the viewer to publish `ready`, turns the
cameras off with a click on their check box, screenshots the canvas and checks that model
pixels (those differing from the clear colour) fill the rectangle the model's bounding box
projects to under the page's published view-projection matrix, and that almost none fall
outside it; with the model off nothing is drawn, and with the dense cloud on its points fill
part of that box. Then turns the model and the cameras on, points at a camera (its photo must show), clicks it,
clicks "Look through this camera", and checks that the view took that camera's pose and lens
(the model box's corners where its pinhole puts them) and still shows the model. A second, WebGL-less browser must keep the renders and say why.

Writes OUTDIR/viewer-orbit.png and OUTDIR/viewer-camera.png, prints one JSON line of the
figures, exits 1 with the reason when a check fails. Needs Debian's `chromium` and Pillow.
"""
import base64
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from PIL import Image

CLEAR = (0xF4, 0xF6, 0xF8)  # the viewer's clear colour
MODEL_DIFF = 24             # a channel this far from CLEAR is a drawn pixel
VIEWPORT = (1200, 900)


def fail(message):
    print("viewer check failed: " + message, file=sys.stderr)
    sys.exit(1)


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    fail("chromium not found: run scripts/setup (Debian package chromium)")


BASE_FLAGS = ["--headless", "--no-sandbox", "--no-first-run", "--no-default-browser-check",
              "--hide-scrollbars", "--mute-audio", "--disable-extensions",
              "--window-size=%d,%d" % VIEWPORT]
WEBGL_FLAGS = ["--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist"]


class Browser:
    """One headless Chromium and its DevTools pipe (fd 3 in, fd 4 out for the browser)."""

    def __init__(self, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def wire():
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.proc = subprocess.Popen(
            [chromium()] + BASE_FLAGS + WEBGL_FLAGS + ["--remote-debugging-pipe", "--user-data-dir=" + profile, "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(3, 4), preexec_fn=wire)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.page = None  # the DevTools attachment to the page

    def send(self, method, params=None, to_page=True, timeout=60):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if to_page and self.page:
            message["sessionId"] = self.page
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self.receive(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    fail("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def receive(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                fail("the browser did not answer in time")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                fail("the browser closed its DevTools pipe")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(line)

    def open(self, url):
        target = self.send("Target.createTarget", {"url": "about:blank"}, to_page=False)["targetId"]
        self.page = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, to_page=False)["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": VIEWPORT[0], "height": VIEWPORT[1], "deviceScaleFactor": 1, "mobile": False})
        self.send("Page.navigate", {"url": url})

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            fail("page script failed: %s" % result["exceptionDetails"])
        return result["result"].get("value")

    def state(self):
        text = self.evaluate("(document.getElementById('viewer-state') || {}).textContent || ''")
        return json.loads(text) if text else None

    def wait_state(self, predicate, what, timeout=90):
        deadline = time.time() + timeout
        while time.time() < deadline:
            state = self.state()
            if state and predicate(state):
                return state
            time.sleep(0.25)
        note = self.evaluate("(document.getElementById('viewer-note') || {}).textContent || ''")
        fail("timed out waiting for %s (page note: %r)" % (what, note))

    def settle(self):
        """Two animation frames: a redraw asked for now has happened."""
        self.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))")

    def rect(self, selector):
        return self.evaluate("(() => { const r = document.querySelector(%s).getBoundingClientRect();"
                             " return [r.left, r.top, r.width, r.height]; })()" % json.dumps(selector))

    def mouse(self, kind, x, y, button="none", clicks=0):
        self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": button, "clickCount": clicks})

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, "left", 1)
        self.mouse("mouseReleased", x, y, "left", 1)
        self.settle()

    def click_element(self, selector):
        left, top, width, height = self.rect(selector)
        self.click(left + width / 2, top + height / 2)

    def screenshot(self):
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        return Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")

    def close(self):
        try:
            self.send("Browser.close", to_page=False, timeout=10)
        except SystemExit:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def project(matrix, point):
    """Clip coordinates of `point` under a column-major 4x4 matrix."""
    x, y, z = point
    return [matrix[i] * x + matrix[4 + i] * y + matrix[8 + i] * z + matrix[12 + i] for i in range(4)]


def to_canvas(matrix, point, width, height):
    clip = project(matrix, point)
    if clip[3] <= 0:
        return None
    return ((clip[0] / clip[3] + 1) / 2 * width, (1 - clip[1] / clip[3]) / 2 * height)


def drawn(pixel):
    return max(abs(pixel[i] - CLEAR[i]) for i in range(3)) > MODEL_DIFF


def model_pixels(image, canvas):
    """The canvas part of the screenshot and the set-up of drawn pixels as (x, y) in it."""
    left, top, width, height = [int(round(v)) for v in canvas]
    crop = image.crop((left, top, left + width, top + height))
    pixels = crop.load()
    return crop, [(x, y) for y in range(crop.height) for x in range(crop.width) if drawn(pixels[x, y])]


def camera_centre(camera):
    r, t = camera["R"], camera["t"]
    return [-(r[0 + i] * t[0] + r[3 + i] * t[1] + r[6 + i] * t[2]) for i in range(3)]


def check_box(state, crop, points):
    """Drawn pixels against the projected model box; returns the figures."""
    b = state["bounds"]
    corners = [(b[i], b[1 + j], b[2 + k]) for i in (0, 3) for j in (0, 3) for k in (0, 3)]
    projected = [to_canvas(state["viewProjection"], c, crop.width, crop.height) for c in corners]
    if any(p is None for p in projected):
        fail("the model's box is partly behind the camera in the first view")
    xs, ys = [p[0] for p in projected], [p[1] for p in projected]
    margin = 2
    x0, x1 = max(0, min(xs) - margin), min(crop.width, max(xs) + margin)
    y0, y1 = max(0, min(ys) - margin), min(crop.height, max(ys) + margin)
    inside = [p for p in points if x0 <= p[0] <= x1 and y0 <= p[1] <= y1]
    outside = len(points) - len(inside)
    box_area = max(1.0, (x1 - x0) * (y1 - y0))
    outside_area = max(1.0, crop.width * crop.height - box_area)
    figures = {
        "box_px": [round(x0, 1), round(y0, 1), round(x1, 1), round(y1, 1)],
        "box_fill": round(len(inside) / box_area, 3),
        "outside_fraction": round(outside / outside_area, 5),
    }
    if inside:
        px = [p[0] for p in inside]
        py = [p[1] for p in inside]
        figures["model_extent_of_box"] = [round((max(px) - min(px)) / max(1, x1 - x0), 3),
                                         round((max(py) - min(py)) / max(1, y1 - y0), 3)]
    if figures["box_fill"] < 0.10:
        fail("too few model pixels inside the projected box: %s" % figures)
    if figures["outside_fraction"] > 0.002:
        fail("model pixels outside the projected box: %s" % figures)
    if min(figures["model_extent_of_box"]) < 0.4:
        fail("the model covers too little of its projected box: %s" % figures)
    if (x1 - x0) < 0.2 * crop.width and (y1 - y0) < 0.2 * crop.height:
        fail("the model is too small in the first view: %s" % figures)
    return figures


def check_without_webgl(url, profile):
    """A browser without WebGL keeps the four renders and says why there is no 3D view."""
    dom = subprocess.run([chromium()] + BASE_FLAGS + ["--disable-3d-apis", "--disable-gpu", "--user-data-dir=" + profile,
                                                      "--virtual-time-budget=5000", "--dump-dom", url],
                         capture_output=True, text=True, timeout=120).stdout
    if "this browser has no WebGL" not in dom:
        fail("without WebGL the page does not say why there is no 3D view")
    if '<div class="renders views" hidden' in dom or '<div class="renders views" hidden=""' in dom:
        fail("without WebGL the renders were hidden")
    return True


def main():
    if len(sys.argv) < 3:
        fail("usage: viewer-check.py REPORT.html OUTDIR [--camera NAME]")
    report, outdir = os.path.abspath(sys.argv[1]), sys.argv[2]
    wanted = sys.argv[sys.argv.index("--camera") + 1] if "--camera" in sys.argv else None
    os.makedirs(outdir, exist_ok=True)
    url = "file://" + report
    figures = {}
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(profile)
        try:
            browser.open(url)
            started = time.time()
            browser.wait_state(lambda s: s.get("ready"), "the viewer to start")
            figures["start_seconds"] = round(time.time() - started, 2)
            data = json.loads(browser.evaluate("document.getElementById('viewer-data').textContent"))
            has_mesh = "mesh" in data
            browser.evaluate("document.getElementById('viewer-canvas').scrollIntoView({block: 'start'}); 1")
            browser.settle()
            # Cameras off (a real click on the box), then only the model is drawn.
            if has_mesh:
                browser.click_element("#viewer-show-cameras")
                if browser.evaluate("document.getElementById('viewer-show-cameras').checked"):
                    fail("clicking the cameras box did not untick it")
                browser.settle()
            state = browser.state()
            canvas = browser.rect("#viewer-canvas")
            image = browser.screenshot()
            crop, points = model_pixels(image, canvas)
            crop.save(os.path.join(outdir, "viewer-orbit.png"))
            if has_mesh:
                figures["orbit"] = check_box(state, crop, points)
                # The toggles: model off and nothing is drawn; the dense cloud on and its points
                # show inside the model's box.
                browser.click_element("#viewer-show-model")
                _, bare = model_pixels(browser.screenshot(), canvas)
                figures["toggles"] = {"model_off_drawn": len(bare)}
                if bare:
                    fail("with the model and cameras off, %d pixels are still drawn" % len(bare))
                if "dense" in data:
                    browser.click_element("#viewer-show-dense")
                    _, dense = model_pixels(browser.screenshot(), canvas)
                    x0, y0, x1, y1 = figures["orbit"]["box_px"]
                    inside = sum(1 for p in dense if x0 <= p[0] <= x1 and y0 <= p[1] <= y1)
                    figures["toggles"]["dense_fill"] = round(inside / max(1.0, (x1 - x0) * (y1 - y0)), 3)
                    if figures["toggles"]["dense_fill"] < 0.02:
                        fail("ticking the dense cloud draws too little in the model's box: %s" % figures["toggles"])
                    browser.click_element("#viewer-show-dense")
                browser.click_element("#viewer-show-model")
                browser.click_element("#viewer-show-cameras")
            # Zoom out with the mouse wheel until the cameras are in view (the first view frames
            # the model), then point at a camera and click it: the one farthest from the others.
            left, top, width, height = canvas
            def in_view(matrix):
                spots = []
                for camera in data["cameras"]:
                    spot = to_canvas(matrix, camera_centre(camera), width, height)
                    if spot and 20 < spot[0] < width - 20 and 20 < spot[1] < height - 20:
                        spots.append((camera["name"], spot, camera))
                return spots
            wheel = 0
            while len(in_view(state["viewProjection"])) < min(len(data["cameras"]), 3) and wheel < 60:
                browser.send("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": left + width / 2, "y": top + height / 2,
                                                          "deltaX": 0, "deltaY": 120})
                wheel += 1
                browser.settle()
                state = browser.state()
            figures["wheel_steps_out"] = wheel
            if state["view"] != "orbit":
                fail("zooming did not keep the orbit view: %s" % state["view"])
            spots = in_view(state["viewProjection"])
            if not spots:
                fail("no camera is in view after zooming out")
            def separation(entry):
                others = [((entry[1][0] - o[1][0]) ** 2 + (entry[1][1] - o[1][1]) ** 2) ** 0.5 for o in spots if o is not entry]
                return min(others) if others else 1e9
            name, spot, camera = max(spots, key=separation) if wanted is None else next(s for s in spots if s[0] == wanted)
            x, y = left + spot[0], top + spot[1]
            browser.mouse("mouseMoved", x, y)
            browser.settle()
            tip = browser.evaluate("(() => { const t = document.getElementById('viewer-tip');"
                                   " return [t.hidden, t.querySelector('span').textContent, t.querySelector('img').src.slice(0, 22)]; })()")
            if tip[0] or tip[1] != name or not tip[2].startswith("data:image/jpeg"):
                fail("pointing at camera %s does not show its photo: %s" % (name, tip))
            browser.click(x, y)
            picked = browser.wait_state(lambda s: s.get("selected") is not None, "a camera to be picked", timeout=10)
            if picked["selected"] != name:
                fail("clicked camera %s but %s was picked" % (name, picked["selected"]))
            if browser.evaluate("document.getElementById('viewer-camera').hidden"):
                fail("the picked camera's photo is not shown")
            browser.click_element("#viewer-look")
            through = browser.wait_state(lambda s: s.get("view") == "camera " + name, "the view to move to the camera", timeout=10)
            centre = camera_centre(camera)
            extent = max(through["bounds"][3 + i] - through["bounds"][i] for i in range(3))
            offset = max(abs(through["eye"][i] - centre[i]) for i in range(3))
            forward = camera["R"][6:9]
            alignment = sum(through["forward"][i] * forward[i] for i in range(3))
            changed = max(abs(a - b) for a, b in zip(through["viewProjection"], state["viewProjection"]))
            figures["camera"] = {"name": name, "eye_offset_of_extent": offset / max(extent, 1e-12),
                                 "forward_dot": round(alignment, 6), "view_projection_change": round(changed, 4)}
            if offset > 1e-6 * max(extent, 1e-12) or alignment < 0.9999 or changed < 1e-3:
                fail("looking through %s did not take its pose: %s" % (name, figures["camera"]))
            # Its lens too: the box's corners, edge and face middles on the canvas land where the camera's pinhole puts them,
            # the photo scaled to the canvas about its middle (focal length fy on both axes).
            cw, ch = browser.rect("#viewer-canvas")[2:]
            W, H = camera["size"]
            ww, wh = (H * cw / ch, H) if cw / ch > W / H else (W, W * ch / cw)
            scale = cw / ww
            worst, compared = 0.0, 0
            b = through["bounds"]
            grid = [(b[0] + (b[3] - b[0]) * i, b[1] + (b[4] - b[1]) * j, b[2] + (b[5] - b[2]) * k)
                    for i in (0, 0.5, 1) for j in (0, 0.5, 1) for k in (0, 0.5, 1)]
            for corner in grid:
                r, t = camera["R"], camera["t"]
                xc = [sum(r[3 * row + col] * corner[col] for col in range(3)) + t[row] for row in range(3)]
                if xc[2] <= 1e-9:
                    continue
                u = camera["f"][1] * xc[0] / xc[2] + camera["c"][0]
                v = camera["f"][1] * xc[1] / xc[2] + camera["c"][1]
                expected = ((u + (ww - W) / 2) * scale, (v + (wh - H) / 2) * scale)
                # Points on the canvas only: the page's matrix is 32-bit, far off-canvas points
                # would measure its rounding.
                if not (0 <= expected[0] <= cw and 0 <= expected[1] <= ch):
                    continue
                shown = to_canvas(through["viewProjection"], corner, cw, ch)
                if shown:
                    compared += 1
                    worst = max(worst, abs(shown[0] - expected[0]), abs(shown[1] - expected[1]))
            figures["camera"]["lens_error_px"] = round(worst, 4)
            figures["camera"]["lens_points"] = compared
            if worst > 0.5 or compared == 0:
                fail("looking through %s does not take its lens: %s" % (name, figures["camera"]))
            browser.settle()
            image = browser.screenshot()
            crop, points = model_pixels(image, browser.rect("#viewer-canvas"))
            crop.save(os.path.join(outdir, "viewer-camera.png"))
            figures["camera"]["drawn_fraction"] = round(len(points) / (crop.width * crop.height), 3)
            if figures["camera"]["drawn_fraction"] < 0.02:
                fail("nothing drawn through camera %s: %s" % (name, figures["camera"]))
        finally:
            browser.close()
    with tempfile.TemporaryDirectory() as profile:
        figures["without_webgl_keeps_renders"] = check_without_webgl(url, profile)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
