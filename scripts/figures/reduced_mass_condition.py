#!/usr/bin/env python3
# Independent check of [002] Tables III and IV, reduced column: as dt -> 0 the reduced Newton
# matrix of the discrete null space method tends to (2/dt) P^T M P, so its condition number
# tends to cond(P^T M P), the kinetic-energy matrix of the pairs in the paper's independent
# velocities (v1, w1, then u', theta' for the C pair (174)-(175), u1', u2', theta' for the E
# pair (176)-(177)) at the initial configuration of s5.2 and s5.3 (d_i = e_i, so body and
# spatial frames coincide). Written from the paper's data alone (no suite code): rigid-body
# velocities v2 = v1 + w1 x (phi2 - phi1) + slides, w2 = w1 + theta' n; pure Python, Jacobi
# eigenvalues. Prints 492.9 (C pair) and 532.0 (E pair); the paper prints ~360/358 and
# ~7.3e2/8.0e2 (docs/reproduction.md). Usage: python3 scripts/figures/reduced_mass_condition.py
import math
def jacobi_eig(a):
    n=len(a); a=[r[:] for r in a]
    for sweep in range(100):
        off=sum(a[i][j]**2 for i in range(n) for j in range(n) if i!=j)
        if off<1e-30: break
        for p in range(n):
            for q in range(p+1,n):
                if abs(a[p][q])<1e-300: continue
                th=(a[q][q]-a[p][p])/(2*a[p][q]); t=(1 if th>=0 else -1)/(abs(th)+math.sqrt(th*th+1))
                c=1/math.sqrt(t*t+1); s=t*c
                for k in range(n):
                    akp,akq=a[k][p],a[k][q]; a[k][p]=c*akp-s*akq; a[k][q]=s*akp+c*akq
                for k in range(n):
                    apk,aqk=a[p][k],a[q][k]; a[p][k]=c*apk-s*aqk; a[q][k]=s*apk+c*aqk
    return [a[i][i] for i in range(n)]
def cross_cols(r):  # columns of -[r]x : w -> w x r
    return [[0,r[2],-r[1]],[-r[2],0,r[0]],[r[1],-r[0],0]]
def reduced(m1,J1,m2,J2,r,slides,axis):
    k=6+len(slides)+1
    def B(body2):
        b=[[0.0]*k for _ in range(6)]
        for i in range(3): b[i][i]=1; b[3+i][3+i]=1
        if body2:
            R=cross_cols(r)
            for i in range(3):
                for j in range(3): b[i][3+j]=R[i][j]
            for s,d in enumerate(slides):
                for i in range(3): b[i][6+s]=d[i]
            for i in range(3): b[3+i][k-1]=axis[i]
        return b
    K=[[0.0]*k for _ in range(k)]
    for b,m,J in ((B(False),m1,J1),(B(True),m2,J2)):
        D=[m,m,m]+J
        for i in range(k):
            for j in range(k):
                K[i][j]+=sum(b[l][i]*D[l]*b[l][j] for l in range(6))
    e=jacobi_eig(K); return max(e)/min(e)
# C pair (s5.2): joint at both centres of mass, axis e3, phi2 - phi1 = (0, 0, -11)
print("C pair: cond(P^T M P) = %.1f" % reduced(4,[304,304,8],3,[18.75,18.75,19.5],[0,0,-11],[[0,0,1]],[0,0,1]))
# E pair (s5.3): slides along m1 = e1, m2 = e2 of body 1, rotation about n = e3
print("E pair: cond(P^T M P) = %.1f" % reduced(5,[5125/48,5125/48,640/3],2,[43/40,43/40,4/5],[-7,-7,1.25],[[1,0,0],[0,1,0]],[0,0,1]))
