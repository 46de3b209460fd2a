"""CV with an entity-span table feature: spans embedded alone with MiniLM, best column cosine per table."""
import sys, re, time
sys.path[:0] = ['scripts', 'submission']
import numpy as np
from dataclasses import replace
import fit, __main__
for _n in ("Question", "TrainingSet", "Outcome"):
    setattr(__main__, _n, getattr(fit, _n))
fit.evidence_digest = lambda: "f6d156666547ec42"
from retriever.embedders.minilm import MiniLM
from retriever.query.channels import column_max
model = MiniLM(batch_size=64)
Q = re.compile(r"\"([^\"]+)\"|\u201c([^\u201d]+)\u201d|(?<!\w)'([^']+)'(?!\w)")
def spans(q):
    out = [next(g for g in m.groups() if g) for m in Q.finditer(q)]
    toks = q.split(); cur = []
    for i, tok in enumerate(toks + ['x']):
        w = re.sub(r"'s$", "", tok.strip('?,.;:!()"'))
        if 0 < i < len(toks) and w[:1].isupper() and not (i > 0 and toks[i-1].endswith(('.', '?', '!'))):
            cur.append(w)
        else:
            if cur: out.append(' '.join(cur)); cur = []
    return [s for s in dict.fromkeys(out) if s.strip()]
orig = fit.load_set
def load_set(*a, **k):
    ts = orig(*a, **k)
    t0 = time.monotonic()
    idx = ts.planner.index
    C = idx.dense['local'][1]
    layout = ts.planner.layout
    allspans = sorted({s for q in ts.questions for s in spans(q.question)})
    vec = dict(zip(allspans, model.embed(allspans, 'query'))) if allspans else {}
    for q in ts.questions:
        sp = spans(q.question)
        if sp:
            V = np.stack([vec[s] for s in sp])
            cos = column_max((C @ V.T).max(axis=1).astype(np.float32), layout)
        else:
            cos = np.zeros(0, dtype=np.float32)
        q.ev = replace(q.ev, entity_cos=cos)
        q.ev_lexical = replace(q.ev_lexical, entity_cos=np.zeros(0, dtype=np.float32))
    print(f'entcv: {ts.name} {len(allspans)} spans in {time.monotonic()-t0:.0f}s', file=sys.stderr, flush=True)
    return ts
fit.load_set = load_set
sys.exit(fit.main(sys.argv[1:]))
