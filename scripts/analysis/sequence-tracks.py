#!/usr/bin/env python3
"""Tracks that reach back two frames, per frame of a video-like capture (OpenCV SIFT, RootSIFT,
mutual ratio 0.8, MAGSAC F at 1.5 px, pairs up to 3 frames apart): whether a feature-based
mapper can carry the scale through a stretch (PnP and registration from a pair need tracks that
span three frames).

usage: scripts/analysis/sequence-tracks.py IMAGES_DIR CONTRAST FIRST LAST    (0-based frame indices)
e.g.   scripts/analysis/sequence-tracks.py ../shared/datasets/pavilion-outer/images 0.01 26 42
"""
import cv2,glob,numpy as np,sys
files=sorted(glob.glob(sys.argv[1]+'/*'))
ct=float(sys.argv[2]); lo,hi=int(sys.argv[3]),int(sys.argv[4])
sift=cv2.SIFT_create(contrastThreshold=ct)
fs={}
for i in range(lo,hi):
    g=cv2.imread(files[i],0)
    k,d=sift.detectAndCompute(g,None)
    d=np.sqrt(d/(d.sum(1,keepdims=True)+1e-9)).astype(np.float32)
    fs[i]=(np.float32([p.pt for p in k]),d)
bf=cv2.BFMatcher()
par={}
def f(x):
    while par.get(x,x)!=x:
        par[x]=par.get(par[x],par[x]); x=par[x]
    return x
def u(a,b): par[f(a)]=f(b)
for i in range(lo,hi):
  for j in range(i+1,min(hi,i+4)):
    (pa,da),(pb,db)=fs[i],fs[j]
    m=bf.knnMatch(da,db,k=2); m2=bf.knnMatch(db,da,k=1)
    back={x[0].queryIdx:x[0].trainIdx for x in m2}
    good=[x[0] for x in m if len(x)==2 and x[0].distance<0.8*x[1].distance and back.get(x[0].trainIdx)==x[0].queryIdx]
    if len(good)<15: continue
    A=pa[[g.queryIdx for g in good]];B=pb[[g.trainIdx for g in good]]
    F,mask=cv2.findFundamentalMat(A,B,cv2.USAC_MAGSAC,1.5,0.999,10000)
    if mask is None or mask.sum()<15: continue
    for g,ok in zip(good,mask.ravel()):
        if ok: u((i,g.queryIdx),(j,g.trainIdx))
from collections import defaultdict
tr=defaultdict(set)
for x in list(par.keys()): tr[f(x)].add(x[0])
for i in range(lo,hi):
    # tracks through i that also include i-1 and some other frame (so triangulated from registered frames before i)
    n3=sum(1 for t in tr.values() if i in t and len([k for k in t if k<i])>=2)
    n2=sum(1 for t in tr.values() if i in t and len([k for k in t if k<i])>=1)
    print(i, 'tracks with >=2 earlier frames', n3, ' >=1 earlier', n2)
