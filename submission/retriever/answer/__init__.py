"""What is made of an answer: relevance and confidence, the explanation, DDL, and scoring against labels."""
