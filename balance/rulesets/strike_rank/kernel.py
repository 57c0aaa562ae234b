"""placeholder"""
def simulate(*a, **k):
    raise NotImplementedError
