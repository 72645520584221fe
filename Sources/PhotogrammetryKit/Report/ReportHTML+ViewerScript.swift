extension ReportHTML {
    /// The viewer's own script (after three.js and OrbitControls): reads `#viewer-data`, draws on
    /// demand (no animation loop: an idle page costs nothing), and publishes what it shows in
    /// `#viewer-state` as JSON — `ready`, `view` ("orbit" or "camera NAME"), `selected`,
    /// `viewProjection` (column-major, world to clip), `eye`, `forward`, `bounds` (the model's
    /// box; without a model, the middle of the sparse points and the cameras) and `canvas` (its
    /// box in the page) — which the
    /// browser test reads back. Without WebGL or three.js it says so and leaves the renders.
    ///
    /// The reconstruction's cameras look along +z with y down (COLMAP); three.js cameras look
    /// along -z with y up, hence the flips. "Up" for orbiting is the frame's (`up`) when the run
    /// knows it, else the cameras' mean up direction.
    static let viewerScript = #"""
        (function () {
          'use strict';
          // The image table (the photos) and the renders come after this script: start once parsed.
          if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
          function start() {
          var section = document.getElementById('viewer');
          var note = document.getElementById('viewer-note');
          var stateOut = document.getElementById('viewer-state');
          function say(text) { note.textContent = text; note.hidden = false; }
          if (!window.THREE || !THREE.OrbitControls) { say('3D view unavailable: three.js did not load; the renders below show the model.'); return; }
          var data = JSON.parse(document.getElementById('viewer-data').textContent);
          var canvas = document.getElementById('viewer-canvas');
          var renderer;
          try {
            var probe = document.createElement('canvas');
            if (!(probe.getContext('webgl') || probe.getContext('experimental-webgl'))) throw new Error('no WebGL');
            renderer = new THREE.WebGLRenderer({ canvas: canvas, antialias: true, preserveDrawingBuffer: true });
          } catch (e) {
            say('3D view unavailable: this browser has no WebGL; the renders below show the model.');
            return;
          }
          function bytes(b64) {
            var s = atob(b64), out = new Uint8Array(s.length);
            for (var i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
            return out;
          }
          function dequantise(b64, box, dims) {
            var q = new Uint16Array(bytes(b64).buffer), out = new Float32Array(q.length);
            for (var i = 0; i < q.length; i++) {
              var a = i % 3;
              out[i] = a < dims ? box[a] + (box[a + 3] - box[a]) * q[i] / 65535 : 0;
            }
            return out;
          }
          function uvs(b64, box) {
            var xyz = dequantise(b64, box, 2), out = new Float32Array(xyz.length / 3 * 2);
            for (var i = 0, j = 0; i < xyz.length; i += 3) { out[j++] = xyz[i]; out[j++] = xyz[i + 1]; }
            return out;
          }
          var scene = new THREE.Scene();
          renderer.setClearColor(0xf4f6f8, 1);
          var pending = 0, frame = 0, layers = {};
          function drawLater() { if (!frame) frame = requestAnimationFrame(function () { frame = 0; draw(); }); }

          // The model.
          var box = null;
          if (data.mesh) {
            var m = data.mesh, geometry = new THREE.BufferGeometry();
            geometry.setAttribute('position', new THREE.BufferAttribute(dequantise(m.positions, m.box, 3), 3));
            var ib = bytes(m.indices);
            geometry.setIndex(new THREE.BufferAttribute(m.indexBits === 32 ? new Uint32Array(ib.buffer) : new Uint16Array(ib.buffer), 1));
            var materials = [];
            if (m.uvs) {
              geometry.setAttribute('uv', new THREE.BufferAttribute(uvs(m.uvs, m.uvBox), 2));
              m.textures.forEach(function (jpeg) {
                var image = new Image(), texture = new THREE.Texture(image);
                pending++;
                image.onload = function () { texture.needsUpdate = true; pending--; loaded(); };
                image.onerror = function () { pending--; loaded(); };
                image.src = 'data:image/jpeg;base64,' + jpeg;
                materials.push(new THREE.MeshBasicMaterial({ map: texture, side: THREE.FrontSide }));
              });
            } else {
              geometry.setAttribute('color', new THREE.BufferAttribute(bytes(m.colors), 3, true));
              materials.push(new THREE.MeshBasicMaterial({ vertexColors: THREE.VertexColors, side: THREE.FrontSide }));
            }
            m.groups.forEach(function (g) { geometry.addGroup(3 * g[0], 3 * g[1], Math.max(0, g[2])); });
            layers.model = new THREE.Mesh(geometry, materials);
            scene.add(layers.model);
            box = m.box;
          }
          function cloud(c, size) {
            var g = new THREE.BufferGeometry();
            g.setAttribute('position', new THREE.BufferAttribute(dequantise(c.positions, c.box, 3), 3));
            g.setAttribute('color', new THREE.BufferAttribute(bytes(c.colors), 3, true));
            return new THREE.Points(g, new THREE.PointsMaterial({ size: size, sizeAttenuation: false, vertexColors: THREE.VertexColors }));
          }
          // Without a model: the box of the middle 96 % of the sparse points on each axis (a few
          // stray points would make the model a speck), grown to hold the cameras.
          function middleBox(positions) {
            var out = [];
            for (var a = 0; a < 3; a++) {
              var v = [];
              for (var i = a; i < positions.length; i += 3) v.push(positions[i]);
              v.sort(function (x, y) { return x - y; });
              out[a] = v[Math.floor(0.02 * (v.length - 1))];
              out[a + 3] = v[Math.ceil(0.98 * (v.length - 1))];
            }
            return out;
          }
          if (data.sparse && data.sparse.count) {
            layers.sparse = cloud(data.sparse, 3);
            if (!box) box = middleBox(layers.sparse.geometry.attributes.position.array);
          }
          if (data.dense && data.dense.count) { layers.dense = cloud(data.dense, 2); }

          // The cameras: centre, axes (world from camera), and a frustum sized to the scene.
          var cams = data.cameras.map(function (c) {
            var R = c.R, t = c.t;
            var centre = new THREE.Vector3(
              -(R[0] * t[0] + R[3] * t[1] + R[6] * t[2]),
              -(R[1] * t[0] + R[4] * t[1] + R[7] * t[2]),
              -(R[2] * t[0] + R[5] * t[1] + R[8] * t[2]));
            return { data: c, centre: centre,
                     right: new THREE.Vector3(R[0], R[1], R[2]), down: new THREE.Vector3(R[3], R[4], R[5]),
                     forward: new THREE.Vector3(R[6], R[7], R[8]) };
          });
          var pointsBox = !data.mesh && box ? box.slice() : null;
          if (!data.mesh && cams.length) {
            var lo = box ? new THREE.Vector3(box[0], box[1], box[2]) : cams[0].centre.clone();
            var hi = box ? new THREE.Vector3(box[3], box[4], box[5]) : lo.clone();
            cams.forEach(function (c) { lo.min(c.centre); hi.max(c.centre); });
            box = [lo.x, lo.y, lo.z, hi.x, hi.y, hi.z];
          }
          if (!box) { say('3D view: nothing to show.'); return; }
          // The view turns about the model (or the points), far enough to hold the whole box.
          var focus = pointsBox || box;
          var centre = new THREE.Vector3((focus[0] + focus[3]) / 2, (focus[1] + focus[4]) / 2, (focus[2] + focus[5]) / 2);
          var radius = 1e-9;
          [0, 3].forEach(function (i) { [1, 4].forEach(function (j) { [2, 5].forEach(function (k) {
            radius = Math.max(radius, centre.distanceTo(new THREE.Vector3(focus[i], focus[j], focus[k])));
          }); }); });
          if (pointsBox) cams.forEach(function (c) { radius = Math.max(radius, centre.distanceTo(c.centre)); });
          var up = new THREE.Vector3();
          if (data.up) up.fromArray(data.up); else cams.forEach(function (c) { up.sub(c.down); });
          if (up.lengthSq() < 1e-12) up.set(0, 1, 0);
          up.normalize();
          var distances = cams.map(function (c) { return c.centre.distanceTo(centre); }).sort(function (a, b) { return a - b; });
          var frustumDepth = 0.12 * (distances.length ? distances[distances.length >> 1] : radius);
          function frustumCorners(c) {
            var d = c.data, pts = [c.centre];
            [[0, 0], [d.size[0], 0], [d.size[0], d.size[1]], [0, d.size[1]]].forEach(function (p) {
              var x = (p[0] - d.c[0]) / d.f[0] * frustumDepth, y = (p[1] - d.c[1]) / d.f[1] * frustumDepth;
              pts.push(c.centre.clone().addScaledVector(c.right, x).addScaledVector(c.down, y).addScaledVector(c.forward, frustumDepth));
            });
            return pts;
          }
          var frustumPositions = [], frustumColours = [];
          var edges = [[0, 1], [0, 2], [0, 3], [0, 4], [1, 2], [2, 3], [3, 4], [4, 1]];
          cams.forEach(function (c) {
            c.corners = frustumCorners(c);
            edges.forEach(function (e) {
              [e[0], e[1]].forEach(function (k) { frustumPositions.push(c.corners[k].x, c.corners[k].y, c.corners[k].z); frustumColours.push(0.85, 0.2, 0.15); });
            });
          });
          if (cams.length) {
            var fg = new THREE.BufferGeometry();
            fg.setAttribute('position', new THREE.BufferAttribute(new Float32Array(frustumPositions), 3));
            fg.setAttribute('color', new THREE.BufferAttribute(new Float32Array(frustumColours), 3));
            layers.cameras = new THREE.LineSegments(fg, new THREE.LineBasicMaterial({ vertexColors: THREE.VertexColors }));
          }
          function paintCamera(index, rgb) {
            var colours = layers.cameras.geometry.attributes.color;
            for (var k = 0; k < 16; k++) colours.setXYZ(16 * index + k, rgb[0], rgb[1], rgb[2]);
            colours.needsUpdate = true;
          }

          // Toggles: a layer is in the scene while its box is ticked.
          ['model', 'cameras', 'sparse', 'dense'].forEach(function (name) {
            var input = document.getElementById('viewer-show-' + name);
            if (!input) return;
            if (!layers[name]) { input.parentNode.hidden = true; return; }
            function apply() { if (input.checked) scene.add(layers[name]); else scene.remove(layers[name]); drawLater(); }
            input.addEventListener('change', apply);
            apply();
          });

          var camera = new THREE.PerspectiveCamera(45, 1, radius * 1e-3, radius * 1e3);
          camera.up.copy(up);
          var controls = new THREE.OrbitControls(camera, canvas);
          var view = 'orbit', selected = null;
          function home() {
            // From the side of the first camera, raised 25 degrees, far enough for the whole box.
            var side = cams.length ? cams[0].centre.clone().sub(centre) : new THREE.Vector3(0, 0, 1);
            side.addScaledVector(up, -side.dot(up));
            if (side.lengthSq() < 1e-12) side.set(1, 0, 0).addScaledVector(up, -up.x);
            side.normalize().multiplyScalar(Math.cos(25 * Math.PI / 180)).addScaledVector(up, Math.sin(25 * Math.PI / 180));
            through = null;
            applyLens();
            camera.fov = 45;
            camera.near = radius * 1e-3; camera.far = radius * 1e3;
            camera.position.copy(centre).addScaledVector(side, 1.15 * radius / Math.sin(camera.fov * Math.PI / 360));
            controls.target.copy(centre);
            view = 'orbit';
            controls.update();
          }
          var through = null;  // the camera looked through, whose lens the view takes
          function applyLens() {
            var w = Math.max(1, canvas.clientWidth), h = Math.max(1, canvas.clientHeight);
            if (!through) { camera.clearViewOffset(); camera.aspect = w / h; return; }
            // The photo as a window of a frustum centred on its principal point (focal length fy
            // on both axes), the window widened or heightened about the photo to the canvas's shape.
            var d = through.data, W = d.size[0], H = d.size[1], cx = d.c[0], cy = d.c[1];
            var fullW = 2 * Math.max(cx, W - cx), fullH = 2 * Math.max(cy, H - cy);
            var ww = W, wh = H;
            if (w / h > W / H) ww = H * w / h; else wh = W * h / w;
            camera.fov = 2 * Math.atan(fullH / 2 / d.f[1]) * 180 / Math.PI;
            camera.aspect = fullW / fullH;
            camera.setViewOffset(fullW, fullH, fullW / 2 - cx - (ww - W) / 2, fullH / 2 - cy - (wh - H) / 2, ww, wh);
          }
          function lookThrough(c) {
            var d = c.data, eye = c.centre;
            camera.position.copy(eye);
            camera.up.copy(c.down).negate();
            camera.near = Math.max(radius * 1e-4, 1e-9); camera.far = radius * 1e3;
            camera.lookAt(eye.clone().add(c.forward));
            controls.target.copy(eye).addScaledVector(c.forward, Math.max(eye.distanceTo(centre), 1e-6));
            camera.up.copy(up);
            through = c;
            applyLens();
            view = 'camera ' + d.name;
            draw();
          }
          function resize() {
            var w = Math.max(1, canvas.clientWidth), h = Math.max(1, canvas.clientHeight);
            renderer.setPixelRatio(window.devicePixelRatio || 1);
            renderer.setSize(w, h, false);
            applyLens();
            drawLater();
          }
          function publish() {
            camera.updateMatrixWorld();
            var vp = new THREE.Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
            var r = canvas.getBoundingClientRect(), forward = new THREE.Vector3();
            camera.getWorldDirection(forward);
            stateOut.textContent = JSON.stringify({
              ready: pending === 0, view: view, selected: selected === null ? null : cams[selected].data.name,
              viewProjection: vp.elements.slice(), eye: camera.position.toArray(), forward: forward.toArray(),
              bounds: box, canvas: [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height]
            });
          }
          function draw() {
            camera.updateProjectionMatrix();
            renderer.render(scene, camera);
            publish();
          }
          // Any move of the orbit controls leaves a camera's view.
          controls.addEventListener('change', function () {
            if (through) { through = null; applyLens(); }
            view = 'orbit';
            drawLater();
          });

          // Picking: the camera whose projected frustum (apex, corners, middle) is nearest the pointer.
          var panel = document.getElementById('viewer-camera'), photo = document.getElementById('viewer-photo');
          var tip = document.getElementById('viewer-tip'), tipPhoto = tip.querySelector('img'), tipName = tip.querySelector('span');
          var thumbnails = {};
          document.querySelectorAll('section.images img').forEach(function (img) { thumbnails[img.alt] = img.src; });
          function pick(event) {
            if (!layers.cameras || !layers.cameras.parent) return null;
            var r = canvas.getBoundingClientRect(), x = event.clientX - r.left, y = event.clientY - r.top;
            var best = null, bestDistance = 12;
            camera.updateMatrixWorld();
            cams.forEach(function (c, index) {
              var mid = c.corners[1].clone().add(c.corners[3]).multiplyScalar(0.5);
              c.corners.concat([mid]).forEach(function (p) {
                var s = p.clone().project(camera);
                if (s.z < -1 || s.z > 1) return;
                var d = Math.hypot((s.x + 1) / 2 * r.width - x, (1 - s.y) / 2 * r.height - y);
                if (d < bestDistance) { bestDistance = d; best = index; }
              });
            });
            return best;
          }
          function select(index) {
            if (selected !== null) paintCamera(selected, [0.85, 0.2, 0.15]);
            selected = index;
            if (index === null) { panel.hidden = true; drawLater(); return; }
            paintCamera(index, [0.1, 0.45, 0.95]);
            var name = cams[index].data.name;
            document.getElementById('viewer-camera-name').textContent = name;
            photo.src = thumbnails[name] || '';
            photo.hidden = !thumbnails[name];
            photo.alt = 'photo ' + name;
            panel.hidden = false;
            draw();
          }
          var down = null;
          canvas.addEventListener('mousedown', function (e) { down = [e.clientX, e.clientY]; });
          canvas.addEventListener('click', function (e) {
            if (down && Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 4) return;
            select(pick(e));
          });
          canvas.addEventListener('mousemove', function (e) {
            if (e.buttons) { tip.hidden = true; return; }
            var index = pick(e);
            if (index === null) { tip.hidden = true; return; }
            var name = cams[index].data.name, r = canvas.getBoundingClientRect();
            tipName.textContent = name;
            tipPhoto.src = thumbnails[name] || '';
            tipPhoto.hidden = !thumbnails[name];
            tip.style.left = Math.min(e.clientX - r.left + 14, r.width - 180) + 'px';
            tip.style.top = Math.max(e.clientY - r.top - 10, 0) + 'px';
            tip.hidden = false;
          });
          canvas.addEventListener('mouseleave', function () { tip.hidden = true; });
          document.getElementById('viewer-look').addEventListener('click', function () { if (selected !== null) lookThrough(cams[selected]); });
          document.getElementById('viewer-reset').addEventListener('click', function () { home(); draw(); });

          // Started: the viewer takes the place of the four views (the photo/render pairs stay).
          note.hidden = true;
          section.querySelectorAll('[data-viewer-hidden]').forEach(function (el) { el.hidden = false; });
          document.querySelectorAll('.model .views').forEach(function (el) { el.hidden = true; });
          home();
          window.addEventListener('resize', resize);
          resize();
          function loaded() { if (pending === 0) draw(); }
          draw();
          }
        })();
        """#
}
