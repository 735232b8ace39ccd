// hook used by the golden test; never run
