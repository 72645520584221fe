#!/usr/bin/env python3
"""How far a model's poses put a pair's own matches off their epipolar lines: raw OpenCV SIFT
matches (ratio 0.8, MAGSAC F at 1 px) of two images, judged under the relative pose a COLMAP text
model gives them. A true pose leaves them within a pixel; a frame turned by 180 degrees (a
symmetric texture's twins) leaves them about 100 px off.

usage: scripts/analysis/epipolar-check.py MODEL_DIR IMAGES_DIR A,B [A,B ...]   (0-based frame indices
       in sorted name order; the model's images are matched by name)
"""
import glob,os
import numpy as np,cv2,sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), '..', 'lib'))
from pgscripts import read_cameras, read_images  # noqa: E402
M=sys.argv[1]; files=sorted(glob.glob(sys.argv[2]+'/*')); names=[os.path.basename(f) for f in files]
R={};T={}
for im in read_images(M):
    i=names.index(im.name); R[i]=np.array(im.R); T[i]=np.array(im.t)
f,cx,cy,k=next(iter(read_cameras(M).values())).params[:4]
sift=cv2.SIFT_create(); bf=cv2.BFMatcher()
def feat(i):
    g=cv2.imread(files[i],0)
    kp,d=sift.detectAndCompute(g,None); return np.float64([p.pt for p in kp]),d
def norm(x):
    u=(x-[cx,cy])/f
    # undo radial approx (one iteration)
    for _ in range(5):
        r2=(u**2).sum(1,keepdims=True); u=((x-[cx,cy])/f)/(1+k*r2)
    return u
for a,b in [tuple(map(int,x.split(','))) for x in sys.argv[3:]]:
    pa,da=feat(a);pb,db=feat(b)
    m=bf.knnMatch(da,db,k=2); good=[x[0] for x in m if x[0].distance<0.8*x[1].distance]
    A=pa[[g.queryIdx for g in good]];B=pb[[g.trainIdx for g in good]]
    Fm,mask=cv2.findFundamentalMat(A,B,cv2.USAC_MAGSAC,1.0,0.999,10000); mask=mask.ravel()>0
    A=norm(A[mask]);B=norm(B[mask])
    Rr=R[b]@R[a].T; t=T[b]-Rr@T[a]; t/=np.linalg.norm(t)
    tx=np.array([[0,-t[2],t[1]],[t[2],0,-t[0]],[-t[1],t[0],0]]); E=tx@Rr
    ha=np.hstack([A,np.ones((len(A),1))]); hb=np.hstack([B,np.ones((len(B),1))])
    l=(E@ha.T).T; err=np.abs((hb*l).sum(1))/np.hypot(l[:,0],l[:,1])*f
    print(a,b,'F-inliers',mask.sum(),'model epipolar err px: median %.1f, <2px %.2f'%(np.median(err),(err<2).mean()))
