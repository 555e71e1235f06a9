"""The English stopword list used by the groundedness scorer.

It is written out here, not fetched from NLTK or scikit-learn, for two reasons:
nothing may be downloaded at run time, and a reader auditing a coverage score
must be able to see exactly which words were ignored. Number words ("one",
"three", "first") are deliberately absent: numbers are content, and a wrong
number is the commonest hallucination.
"""

from __future__ import annotations

STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all also am an and any are aren't as at
    be because been before being below between both but by
    can can't cannot could couldn't
    did didn't do does doesn't doing don't down during
    each either else etc
    few for from further
    get gets got
    had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him
    himself his how how's however
    i i'd i'll i'm i've if in into is isn't it it's its itself
    just
    let's
    may me might more most must mustn't my myself
    no nor not now
    of off on once only or other ought our ours ourselves out over own
    per please
    same shall shan't she she'd she'll she's should shouldn't so some such
    than that that's the their theirs them themselves then there there's these they they'd they'll
    they're they've this those through to too
    under until up upon us
    very via
    was wasn't we we'd we'll we're we've were weren't what what's when when's where where's whether
    which while who who's whom why why's will with within without won't would wouldn't
    yes yet you you'd you'll you're you've your yours yourself yourselves
    """.split()
)
