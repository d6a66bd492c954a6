"""The models of the papers, as functions: each number of a paper is typed once, here."""
